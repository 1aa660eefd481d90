// The extra suite (contracts/extra/*.json: ATen ops by schema name, not in the default suite):
// every contract validates and plans on both devices, the suite spans at least 15 ops, and each
// contract runs on the CPU at test scale with no case in error and its calls repeatable.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "common/errors.h"
#include "harness/contract_loading.h"
#include "harness/plan.h"
#include "tests/support/miniature.h"
#include "tests/support/run_contracts.h"
#include "tests/support/test_names.h"

namespace samebits {
namespace {

const std::string kExtra = std::string(SAMEBITS_SOURCE_DIR) + "/contracts/extra";

std::vector<std::string> extra_files() {
  return contract_files(kExtra);
}

std::string stem(const std::string& path) {
  const std::string name = path.substr(path.find_last_of('/') + 1);
  return name.substr(0, name.rfind(".json"));
}

TEST(ExtraSuite, SpansAtLeastFifteenSchemaOps) {
  std::set<std::string> ops;
  std::set<CheckKind> kinds;
  for (const auto& c : load_contracts({kExtra})) {
    EXPECT_TRUE(c->inputs.has_value()) << c->source;
    ops.insert(c->op);
    for (const auto& check : c->checks) kinds.insert(check.kind);
  }
  EXPECT_GE(ops.size(), 15u);
  EXPECT_EQ(kinds.size(), 9u) << "every kind but equivalence (one implementation)";
}

// `suite:extra` is the folder, file for file: the embedded list in contracts/CMakeLists.txt
// misses none and adds none, and each text is the file's own.
TEST(ExtraSuite, EmbeddedSuiteIsTheFolder) {
  const auto embedded = load_contracts({"suite:extra"});
  const auto files = load_contracts({kExtra});
  ASSERT_EQ(embedded.size(), files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    EXPECT_EQ(embedded[i]->name, files[i]->name);
    EXPECT_EQ(embedded[i]->sha256, files[i]->sha256) << files[i]->source;
    EXPECT_EQ(embedded[i]->source, "embedded:extra/" + files[i]->name + ".json");
  }
  EXPECT_THROW(load_contracts({"suite:nope"}), ContractError);
}

class ExtraContractTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ExtraContractTest, ValidatesAndPlansOnBothDevices) {
  const auto contracts = load_contracts({GetParam()});
  const OpRegistry registry = OpRegistry::builtin();
  EXPECT_GT(plan_cases(contracts, registry, "cpu", 0).size(), 0u);
  EXPECT_GT(plan_cases(contracts, registry, "cuda", 0).size(), 0u);
}

// Every check runs (none of them skipped whole), no case errors, and a call repeated (with its
// backward, for gradients) gives the same bits.
TEST_P(ExtraContractTest, RunsOnTheCpuAtTestScale) {
  const auto loaded = load_contracts({GetParam()});
  std::vector<std::unique_ptr<Contract>> contracts;
  contracts.push_back(std::make_unique<Contract>(miniature(*loaded.front())));
  const OpRegistry registry = OpRegistry::builtin();
  std::set<std::string> ran;
  for (const auto& r : run_contracts(contracts, registry, "cpu")) {
    SCOPED_TRACE(r.id + ": " + to_string(r.verdict) + " " + r.reason);
    EXPECT_NE(r.verdict, Verdict::error);
    if (r.verdict == Verdict::skipped) continue;
    ran.insert(r.check);
    for (const auto& o : r.outputs) EXPECT_GT(o.diff.numel, 0) << o.name;
    if (r.kind == CheckKind::determinism || r.kind == CheckKind::gradient_determinism) {
      EXPECT_EQ(r.verdict, Verdict::holds);
    }
  }
  for (const auto& check : contracts.front()->checks)
    EXPECT_EQ(ran.count(check.name), 1u) << check.name;
}

INSTANTIATE_TEST_SUITE_P(Extra, ExtraContractTest, ::testing::ValuesIn(extra_files()),
                         [](const auto& info) { return camel_case(stem(info.param)); });

}  // namespace
}  // namespace samebits
