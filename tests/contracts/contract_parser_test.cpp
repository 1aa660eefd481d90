// Contract parser, valid input: every field of the format lands in the model, with per-device axis
// values, ranges, expectations as strings or per device, and comparisons as strings or objects.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "common/digest.h"
#include "common/errors.h"
#include "contracts/contract.h"

namespace samebits {
namespace {

// Every field the format has, once.
const char* const kFullContract = R"({
  "$schema": "./contract.schema.json",
  "comment": "comments are allowed at any level",
  "name": "full",
  "op": "control",
  "description": "every field once",
  "implementations": ["fast", "slow"],
  "sweep": {
    "L": {"cpu": [3, 5], "cuda": {"range": [1, 7, 3]}},
    "rows": {"range": [2, 4]},
    "dtype": ["float32", "bfloat16"],
    "lengths": [[100, 37], [5]],
    "only_on_cuda": {"cuda": [true]}
  },
  "checks": [
    {
      "kind": "determinism",
      "expect": {"fast": "holds", "slow": {"cpu": "violated", "cuda": "unknown"}}
    },
    {
      "name": "close_to_slow",
      "kind": "equivalence",
      "description": "fast agrees with slow",
      "against": "slow",
      "compare": {"comment": "allclose with its own tolerances", "mode": "allclose",
                  "rtol": 0.5, "atol": 0.25, "equal_nan": true, "max_mismatches": 3,
                  "max_mismatch_fraction": 0.125, "outputs": ["prefix"]},
      "sweep": {"L": [9], "batch": [1, 2]},
      "expect": {"fast": {"any": "holds", "cuda": "violated"}}
    },
    {"kind": "reference", "compare": "ulp", "expect": {"fast": "unknown", "slow": "holds"}},
    {"kind": "layout_invariance", "compare": {"mode": "ulp", "max_ulp": 2},
     "expect": {"fast": "holds", "slow": "holds"}}
  ]
})";

class FullContract : public ::testing::Test {
 protected:
  const Contract c = parse_contract(kFullContract, "contracts/full.json");
};

TEST_F(FullContract, TopLevelFields) {
  EXPECT_EQ(c.name, "full");
  EXPECT_EQ(c.source, "contracts/full.json");
  EXPECT_EQ(c.op, "control");
  EXPECT_EQ(c.description, "every field once");
  EXPECT_EQ(c.implementations, (std::vector<std::string>{"fast", "slow"}));
  ASSERT_EQ(c.checks.size(), 4u);
}

TEST_F(FullContract, DigestIsTheSha256OfTheText) {
  EXPECT_EQ(c.sha256, sha256_hex(std::string(kFullContract)));
  const Contract changed = parse_contract(std::string(kFullContract) + " ", "contracts/full.json");
  EXPECT_NE(changed.sha256, c.sha256) << "one added byte must change the digest";
}

TEST_F(FullContract, AxesKeepDeclarationOrder) {
  std::vector<std::string> names;
  for (const auto& a : c.sweep.axes) names.push_back(a.name);
  EXPECT_EQ(names, (std::vector<std::string>{"L", "rows", "dtype", "lengths", "only_on_cuda"}));
  EXPECT_EQ(c.sweep.axes[0].json_path, "/sweep/L");
}

TEST_F(FullContract, PerDeviceValuesAndRangeWithStep) {
  const AxisDecl* axis = c.sweep.find("L");
  ASSERT_NE(axis, nullptr);
  ASSERT_NE(axis->values_for("cpu"), nullptr);
  EXPECT_EQ(Json(*axis->values_for("cpu")), Json::parse("[3, 5]"));
  ASSERT_NE(axis->values_for("cuda"), nullptr);
  EXPECT_EQ(Json(*axis->values_for("cuda")), Json::parse("[1, 4, 7]"));
}

TEST_F(FullContract, RangeWithoutStepIsInclusive) {
  const AxisDecl* axis = c.sweep.find("rows");
  ASSERT_NE(axis, nullptr);
  EXPECT_EQ(Json(*axis->values_for("cpu")), Json::parse("[2, 3, 4]"));
  EXPECT_EQ(Json(*axis->values_for("cuda")), Json::parse("[2, 3, 4]"));
}

TEST_F(FullContract, ArrayValuedAxis) {
  const AxisDecl* axis = c.sweep.find("lengths");
  ASSERT_NE(axis, nullptr);
  EXPECT_EQ(Json(*axis->values_for("cpu")), Json::parse("[[100, 37], [5]]"));
}

TEST_F(FullContract, AxisAbsentOnADevice) {
  const AxisDecl* axis = c.sweep.find("only_on_cuda");
  ASSERT_NE(axis, nullptr);
  EXPECT_EQ(axis->values_for("cpu"), nullptr);
  ASSERT_NE(axis->values_for("cuda"), nullptr);
  EXPECT_EQ(Json(*axis->values_for("cuda")), Json::parse("[true]"));
}

TEST_F(FullContract, CheckNameDefaultsToItsKind) {
  EXPECT_EQ(c.checks[0].name, "determinism");
  EXPECT_EQ(c.checks[0].kind, CheckKind::determinism);
  EXPECT_EQ(c.checks[0].json_path, "/checks/0");
  EXPECT_EQ(c.checks[1].name, "close_to_slow");
  EXPECT_EQ(c.checks[2].name, "reference");
}

TEST_F(FullContract, ExpectationAsString) {
  EXPECT_EQ(c.checks[0].expected("fast", "cpu"), Expectation::holds);
  EXPECT_EQ(c.checks[0].expected("fast", "cuda"), Expectation::holds);
  EXPECT_EQ(c.checks[2].expected("fast", "cpu"), Expectation::unknown);
}

TEST_F(FullContract, ExpectationPerDevice) {
  EXPECT_EQ(c.checks[0].expected("slow", "cpu"), Expectation::violated);
  EXPECT_EQ(c.checks[0].expected("slow", "cuda"), Expectation::unknown);
}

TEST_F(FullContract, ExpectationAnyWithADeviceOverride) {
  EXPECT_EQ(c.checks[1].expected("fast", "cpu"), Expectation::holds);
  EXPECT_EQ(c.checks[1].expected("fast", "cuda"), Expectation::violated);
}

TEST_F(FullContract, ExpectationOfAnUnlistedImplementationIsUnknown) {
  EXPECT_EQ(c.checks[0].expected("other", "cpu"), Expectation::unknown);
}

TEST_F(FullContract, ComparisonObjectWithEveryField) {
  const CheckDecl& check = c.checks[1];
  EXPECT_EQ(check.kind, CheckKind::equivalence);
  EXPECT_EQ(check.description, "fast agrees with slow");
  EXPECT_EQ(check.against, "slow");
  const Comparison& how = check.compare;
  EXPECT_EQ(how.mode, CompareMode::allclose);
  EXPECT_EQ(how.rtol, 0.5);
  EXPECT_EQ(how.atol, 0.25);
  EXPECT_TRUE(how.equal_nan);
  EXPECT_EQ(how.max_mismatches, 3);
  EXPECT_EQ(how.max_mismatch_fraction, 0.125);
  EXPECT_EQ(how.outputs, (std::vector<std::string>{"prefix"}));
}

TEST_F(FullContract, TheAgainstImplementationTakesNoExpectation) {
  EXPECT_EQ(c.checks[1].expect.count("slow"), 0u);
  EXPECT_EQ(c.checks[1].expected("slow", "cpu"), Expectation::unknown);
}

TEST_F(FullContract, CheckSweepOverridesAndAdds) {
  const SweepDecl merged = merge_sweeps(c.sweep, c.checks[1].sweep);
  std::vector<std::string> names;
  for (const auto& a : merged.axes) names.push_back(a.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"L", "rows", "dtype", "lengths", "only_on_cuda", "batch"}));
  EXPECT_EQ(Json(*merged.find("L")->values_for("cpu")), Json::parse("[9]"));
  EXPECT_EQ(Json(*merged.find("L")->values_for("cuda")), Json::parse("[9]"));
  EXPECT_EQ(merged.find("L")->json_path, "/checks/1/sweep/L");
}

TEST_F(FullContract, ComparisonAsString) {
  const Comparison& how = c.checks[2].compare;
  EXPECT_EQ(how.mode, CompareMode::ulp);
  EXPECT_EQ(how.max_ulp, 0);
  EXPECT_FALSE(how.rtol.has_value());
  EXPECT_FALSE(how.atol.has_value());
  EXPECT_FALSE(how.equal_nan);
  EXPECT_FALSE(how.max_mismatches.has_value());
}

TEST_F(FullContract, UlpComparisonWithMaxUlp) {
  EXPECT_EQ(c.checks[3].compare.mode, CompareMode::ulp);
  EXPECT_EQ(c.checks[3].compare.max_ulp, 2);
}

TEST(ContractParser, DefaultComparisonIsBitwise) {
  const Contract c = parse_contract(R"({"op": "sum", "implementations": ["aten"],
    "checks": [{"kind": "determinism", "expect": {"aten": "holds"}}]})",
                                    "x/minimal.json");
  EXPECT_EQ(c.checks[0].compare.mode, CompareMode::bitwise);
  EXPECT_TRUE(c.sweep.axes.empty());
  EXPECT_TRUE(c.checks[0].sweep.axes.empty());
}

// "observed": no promise; the platform's recorded outcome decides (harness/expectations.h).
TEST(ContractParser, ObservedImplementationHasNoPromise) {
  const Contract c = parse_contract(R"({"op": "sum", "implementations": ["aten", "fast"],
    "checks": [{"kind": "determinism", "expect": {"aten": "observed", "fast": "holds"}}]})",
                                    "x/observed.json");
  EXPECT_TRUE(c.checks[0].is_observed("aten"));
  EXPECT_FALSE(c.checks[0].is_observed("fast"));
  EXPECT_EQ(c.checks[0].expected("aten", "cpu"), Expectation::unknown);
  EXPECT_EQ(c.checks[0].expected("fast", "cuda"), Expectation::holds);
}

TEST(ContractParser, NameDefaultsToTheFileStem) {
  const Contract c = parse_contract(R"({"op": "sum", "implementations": ["aten"],
    "checks": [{"kind": "determinism", "expect": {"aten": "holds"}}]})",
                                    "some/dir/minimal.json");
  EXPECT_EQ(c.name, "minimal");
}

TEST(ContractParser, EmbeddedNameDefaultsToTheFileStem) {
  const Contract c = parse_contract(R"({"op": "sum", "implementations": ["aten"],
    "checks": [{"kind": "determinism", "expect": {"aten": "holds"}}]})",
                                    "embedded:sum.json");
  EXPECT_EQ(c.name, "sum");
}

TEST(ContractParser, RangeReachingTheLargestInteger) {
  const Contract c = parse_contract(R"({"op": "sum", "implementations": ["aten"],
    "sweep": {"N": {"range": [9223372036854775806, 9223372036854775807]}},
    "checks": [{"kind": "determinism", "expect": {"aten": "holds"}}]})",
                                    "x/edge.json");
  EXPECT_EQ(Json(*c.sweep.find("N")->values_for("cpu")),
            Json::parse("[9223372036854775806, 9223372036854775807]"));
}

TEST(ContractParser, RangeWhoseLastValueIsNotOnTheStep) {
  const Contract c = parse_contract(R"({"op": "sum", "implementations": ["aten"],
    "sweep": {"N": {"range": [-3, 4, 3]}},
    "checks": [{"kind": "determinism", "expect": {"aten": "holds"}}]})",
                                    "x/step.json");
  EXPECT_EQ(Json(*c.sweep.find("N")->values_for("cpu")), Json::parse("[-3, 0, 3]"));
}

TEST(ContractParser, EnumNamesMatchTheFormat) {
  EXPECT_EQ(check_kind_names(),
            (std::vector<std::string>{"determinism", "batch_invariance", "position_invariance",
                                      "layout_invariance", "padding_invariance",
                                      "chunking_invariance", "equivalence", "reference",
                                      "gradient_invariance", "gradient_determinism",
                                      "logprob_consistency", "logprob_gradient_invariance"}));
  EXPECT_EQ(compare_mode_names(),
            (std::vector<std::string>{"bitwise", "ulp", "allclose", "indices"}));
  EXPECT_EQ(expectation_names(), (std::vector<std::string>{"holds", "violated", "unknown"}));
  EXPECT_EQ(to_string(CheckKind::chunking_invariance), "chunking_invariance");
  EXPECT_EQ(to_string(CompareMode::indices), "indices");
  EXPECT_EQ(to_string(Expectation::violated), "violated");
}

TEST(ContractFile, LoadsFromDiskWithThePathAsSource) {
  const std::string stem = "samebits_loaded_contract_" + std::to_string(::getpid());
  const std::string path = ::testing::TempDir() + stem + ".json";
  const std::string text = R"({"op": "sum", "implementations": ["aten"],
    "checks": [{"kind": "determinism", "expect": {"aten": "holds"}}]})";
  {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  const Contract c = load_contract_file(path);
  std::remove(path.c_str());
  EXPECT_EQ(c.source, path);
  EXPECT_EQ(c.name, stem);
  EXPECT_EQ(c.sha256, sha256_hex(text));
}

TEST(ContractFile, MissingFileNamesThePath) {
  const std::string path = ::testing::TempDir() + "samebits_no_such_contract.json";
  try {
    load_contract_file(path);
    FAIL() << "loading a missing file must throw";
  } catch (const ContractError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace samebits
