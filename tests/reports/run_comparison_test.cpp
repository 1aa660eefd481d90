// Comparing a run with an earlier one: verdict changes (a subset that missed an earlier violation
// is not one), drift case by case and output by output, and the platform differences named.
#include "reports/run_comparison.h"

#include <gtest/gtest.h>

#include "reports/outcome.h"

namespace samebits {
namespace {

CaseResult case_of(const std::string& check, int n, Verdict v, const std::string& digest) {
  CaseResult c;
  c.id = "sum/" + check + "/aten/cpu/N=" + std::to_string(n);
  c.contract = "sum";
  c.check = check;
  c.impl = "aten";
  c.device = "cpu";
  c.verdict = v;
  c.outputs.push_back({"values", "b" + digest, "v" + digest, {}});
  return c;
}

Report run(std::vector<CaseResult> cases, std::int64_t planned_each = 0) {
  Report r;
  r.environment = {{"device", "cpu"}, {"torch", {{"version", "2.11.0"}}}, {"host", {{"cpu", "X"}}}};
  PlannedCounts planned;
  if (planned_each > 0) {
    for (const auto& c : cases)
      planned[planned_key(c.contract, c.check, c.impl, c.device)] = planned_each;
  }
  r.cases = std::move(cases);
  r.checks = judge_checks(r.cases, planned);
  return r;
}

const Report& earlier() {
  static const Report r = run({case_of("determinism", 1, Verdict::holds, "1"),
                               case_of("determinism", 2, Verdict::holds, "2"),
                               case_of("layout", 1, Verdict::holds, "3"),
                               case_of("layout", 2, Verdict::violated, "4")});
  return r;
}

TEST(RunComparison, TheSameRunChangesNothing) {
  const RunComparison c = compare_runs(baseline_of(earlier(), "base"), earlier(), "now");
  EXPECT_TRUE(c.verdict_changes.empty());
  EXPECT_TRUE(c.drift.empty());
  EXPECT_TRUE(c.platform_differences.empty());
  EXPECT_EQ(c.checks_compared, 2);
  EXPECT_EQ(c.cases_compared, 4);
  EXPECT_FALSE(c.gates(true));
}

TEST(RunComparison, OneChangedOutputDriftsInThatCaseOnly) {
  const Report now = run({case_of("determinism", 1, Verdict::holds, "1"),
                          case_of("determinism", 2, Verdict::holds, "X"),
                          case_of("layout", 1, Verdict::holds, "3"),
                          case_of("layout", 2, Verdict::violated, "4")});
  const RunComparison c = compare_runs(baseline_of(earlier(), "base"), now, "now");
  ASSERT_EQ(c.drift.size(), 1u);
  EXPECT_EQ(c.drift[0].id, "sum/determinism/aten/cpu/N=2");
  EXPECT_EQ(c.drift[0].outputs, std::vector<std::string>{"values"});
  EXPECT_TRUE(c.verdict_changes.empty());
  EXPECT_FALSE(c.gates(false));
  EXPECT_TRUE(c.gates(true));
}

TEST(RunComparison, AViolationThatNowHoldsIsAVerdictChange) {
  const Report now =
      run({case_of("determinism", 1, Verdict::violated, "1"),
           case_of("determinism", 2, Verdict::holds, "2"),
           case_of("layout", 1, Verdict::holds, "3"), case_of("layout", 2, Verdict::holds, "5")});
  const RunComparison c = compare_runs(baseline_of(earlier(), "base"), now, "now");
  ASSERT_EQ(c.verdict_changes.size(), 2u);
  EXPECT_EQ(c.verdict_changes[0].check, "sum/determinism/aten");
  EXPECT_EQ(c.verdict_changes[0].after, Expectation::violated);
  EXPECT_EQ(c.verdict_changes[1].check, "sum/layout/aten");
  EXPECT_EQ(c.verdict_changes[1].after, Expectation::holds);
  EXPECT_TRUE(c.gates(false));
  // A changed verdict with the same bits is not possible; with other bits the case drifts too.
  EXPECT_EQ(c.drift.size(), 2u);
}

// A subset (1 of 2 planned cases) that holds where the earlier run saw a violation: not judged.
TEST(RunComparison, ASubsetThatMissedTheViolationIsNotJudged) {
  const Report now = run({case_of("layout", 1, Verdict::holds, "3")}, 2);
  const RunComparison c = compare_runs(baseline_of(earlier(), "base"), now, "now");
  EXPECT_TRUE(c.verdict_changes.empty());
  EXPECT_EQ(c.not_judged, std::vector<std::string>{"sum/layout/aten"});
  EXPECT_EQ(c.cases_only_before, 3);
  // Negative control: the same case as the whole check is judged, and changed.
  const Report whole = run({case_of("layout", 1, Verdict::holds, "3")});
  EXPECT_EQ(compare_runs(baseline_of(earlier(), "base"), whole, "now").verdict_changes.size(), 1u);
}

TEST(RunComparison, AnotherPlatformIsNamedFieldByField) {
  Report now = earlier();
  now.environment["torch"]["version"] = "2.12.0";
  const RunComparison c = compare_runs(baseline_of(earlier(), "base"), now, "now");
  EXPECT_EQ(c.platform_differences, std::vector<std::string>{"torch: 2.11.0 there, 2.12.0 here"});
  EXPECT_FALSE(c.gates(true));
  EXPECT_NE(comparison_text(c).find("recorded on another platform (torch: 2.11.0 there"),
            std::string::npos);
}

}  // namespace
}  // namespace samebits
