// The table of check kinds (contracts/check_kind.h) and the files that give each kind its meaning
// (harness/checks/): every row has its Check, named alike, with the axes the docs promise.
#include <gtest/gtest.h>

#include <set>

#include "harness/checks/check.h"
#include "tests/support/test_names.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace check_table_test_file {}
using namespace check_table_test_file;
namespace check_table_test_file {

class CheckTableTest : public ::testing::TestWithParam<CheckKind> {};

TEST_P(CheckTableTest, EveryKindHasItsCheck) {
  const Check& check = check_for(GetParam());
  EXPECT_EQ(check.kind(), GetParam());
  // Planning reads the same kind through its torch-free spec.
  EXPECT_EQ(&check_spec_for(GetParam()), static_cast<const CheckSpec*>(&check));
  EXPECT_FALSE(check.compares().empty());
  std::set<std::string> names;
  for (const auto& a : check.axes()) EXPECT_TRUE(names.insert(a.name).second) << a.name;
  EXPECT_EQ(parse_check_kind(to_string(GetParam())), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Kinds, CheckTableTest, ::testing::ValuesIn(all_check_kinds()),
                         [](const auto& info) { return camel_case(to_string(info.param)); });

TEST(CheckTable, KindsReadAsTheContractFormatNamesThem) {
  EXPECT_EQ(check_kind_names(),
            (std::vector<std::string>{"determinism", "batch_invariance", "position_invariance",
                                      "layout_invariance", "padding_invariance",
                                      "chunking_invariance", "equivalence", "reference",
                                      "gradient_invariance", "gradient_determinism",
                                      "logprob_consistency", "logprob_gradient_invariance"}));
  EXPECT_TRUE(compares_implementations(CheckKind::equivalence));
  EXPECT_FALSE(compares_implementations(CheckKind::reference));
  EXPECT_THROW(parse_check_kind("batch"), std::invalid_argument);
}

// The axes each kind adds, with the defaults the README's table states.
TEST(CheckTable, DefaultsOfTheBatchAxes) {
  const auto batch_default = [](CheckKind kind) -> Json {
    for (const auto& a : check_for(kind).axes()) {
      if (a.name == "batch") return a.fallback;
    }
    return nullptr;
  };
  EXPECT_EQ(batch_default(CheckKind::determinism), 4);
  EXPECT_EQ(batch_default(CheckKind::batch_invariance), 8);
  EXPECT_EQ(batch_default(CheckKind::position_invariance), 8);
  EXPECT_EQ(batch_default(CheckKind::layout_invariance), 1);
  EXPECT_EQ(batch_default(CheckKind::padding_invariance), nullptr) << "lengths set the batch";
  EXPECT_EQ(batch_default(CheckKind::reference), 1);
  EXPECT_EQ(batch_default(CheckKind::gradient_invariance), 8);
  EXPECT_EQ(batch_default(CheckKind::gradient_determinism), 4);
  EXPECT_EQ(batch_default(CheckKind::logprob_consistency), 1);
  EXPECT_EQ(batch_default(CheckKind::logprob_gradient_invariance), 4);
}

// Only the gradient kinds differentiate, and so take any op they do not refuse, unlisted.
TEST(CheckTable, GradientKindsDifferentiate) {
  for (CheckKind kind : all_check_kinds()) {
    const bool gradient = kind == CheckKind::gradient_invariance ||
                          kind == CheckKind::gradient_determinism ||
                          kind == CheckKind::logprob_gradient_invariance;
    EXPECT_EQ(check_for(kind).differentiates(), gradient) << to_string(kind);
  }
}

}  // namespace check_table_test_file
}  // namespace samebits
