// Merging the reports of a run's shares by the plan they record: cases back in plan order, checks
// judged over all of them (a check split across shares that holds in each is judged whole), and
// parts that do not belong together (or record no plan) refused.
#include "reports/model/report_merge.h"

#include <gtest/gtest.h>

#include "common/errors.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace report_merge_test_file {}
using namespace report_merge_test_file;
namespace report_merge_test_file {

CaseResult case_of(int n, Verdict v) {
  CaseResult c;
  c.id = "sum/layout/aten/cpu/N=" + std::to_string(n);
  c.index = n - 1;  // N=1, 2, 3 are the plan's cases 0, 1, 2
  c.contract = "sum";
  c.check = "layout";
  c.impl = "aten";
  c.device = "cpu";
  c.verdict = v;
  c.expected = Expectation::violated;
  c.expected_from = ExpectationSource::observation;
  return c;
}

const std::vector<std::string> kOrder = {"sum/layout/aten/cpu/N=1", "sum/layout/aten/cpu/N=2",
                                         "sum/layout/aten/cpu/N=3"};
const PlannedCounts kPlanned = {{planned_key("sum", "layout", "aten", "cpu"), 3}};

Report part(std::vector<CaseResult> cases, const std::string& shard) {
  Report r;
  r.environment.device = "cpu";
  r.environment.torch.version = "2.11.0";
  r.settings.device = "cpu";
  r.settings.shard = shard;
  r.plan = RunPlan{3, "plan-digest"};
  r.contracts.push_back({"sum", "s", "abc", "sum", "", ""});
  r.cases = std::move(cases);
  r.checks = judge_checks(r.cases, kPlanned);
  r.summary = summarize(r.cases, r.checks);
  return r;
}

TEST(ReportMerge, CasesInPlanOrderAndTheCheckJudgedWhole) {
  const Report a = part({case_of(3, Verdict::holds), case_of(1, Verdict::holds)}, "0/2");
  const Report b = part({case_of(2, Verdict::violated)}, "1/2");
  EXPECT_EQ(a.checks[0].outcome, Outcome::not_observed);  // each share alone is a subset
  const Report m = merge_reports({{"a.json", a}, {"b.json", b}});
  ASSERT_EQ(m.cases.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(m.cases[i].id, kOrder[i]);
  ASSERT_EQ(m.checks.size(), 1u);
  EXPECT_EQ(m.checks[0].outcome, Outcome::as_expected);
  EXPECT_EQ(m.summary.exit_code, 0);
  EXPECT_FALSE(m.settings.shard);
  ASSERT_EQ(m.settings.merged_from.size(), 2u);
  EXPECT_EQ(m.settings.merged_from[1].report, "b.json");
  EXPECT_EQ(m.settings.merged_from[1].shard, "1/2");
  ASSERT_TRUE(m.plan);
  EXPECT_EQ(m.plan->cases, 3);
}

// Every share holding where a violation was recorded: only the merge may say "now holds".
TEST(ReportMerge, OnlyTheWholeMergeSaysNowHolds) {
  const Report a = part({case_of(1, Verdict::holds), case_of(3, Verdict::holds)}, "0/2");
  const Report b = part({case_of(2, Verdict::holds)}, "1/2");
  EXPECT_EQ(a.summary.exit_code, 0);
  EXPECT_EQ(b.summary.exit_code, 0);
  const Report m = merge_reports({{"a.json", a}, {"b.json", b}});
  EXPECT_EQ(m.checks[0].outcome, Outcome::stale_expectation);
  EXPECT_EQ(m.summary.exit_code, 1);
  // With a share missing the merge is still a subset.
  EXPECT_EQ(merge_reports({{"a.json", a}}).checks[0].outcome, Outcome::not_observed);
}

// A finding keeps what the nearest recorded platform saw through the merge: its verdict, or that
// it records the check as "varies" (from whichever share carries it). Control: neither, nothing.
TEST(ReportMerge, AFindingKeepsTheNearestPlatformsOutcome) {
  auto finding = [](int n) {
    CaseResult c = case_of(n, Verdict::holds);
    c.expected = Expectation::unknown;
    c.expected_from = ExpectationSource::none;
    return c;
  };
  Report a = part({finding(1), finding(3)}, "0/2");
  Report b = part({finding(2)}, "1/2");
  ASSERT_EQ(a.checks[0].outcome, Outcome::finding);
  b.checks[0].nearest_varying = true;
  Report m = merge_reports({{"a.json", a}, {"b.json", b}});
  ASSERT_EQ(m.checks[0].outcome, Outcome::finding);
  EXPECT_TRUE(m.checks[0].nearest_varying);
  b.checks[0].nearest_varying = false;
  a.checks[0].nearest_observed = Expectation::violated;
  m = merge_reports({{"a.json", a}, {"b.json", b}});
  EXPECT_FALSE(m.checks[0].nearest_varying);
  EXPECT_EQ(m.checks[0].nearest_observed, Expectation::violated);
  a.checks[0].nearest_observed = Expectation::unknown;
  m = merge_reports({{"a.json", a}, {"b.json", b}});
  EXPECT_FALSE(m.checks[0].nearest_varying);
  EXPECT_EQ(m.checks[0].nearest_observed, Expectation::unknown);
}

TEST(ReportMerge, PartsThatDoNotBelongTogetherAreRefused) {
  const Report a = part({case_of(1, Verdict::holds)}, "0/2");
  Report other_seed = part({case_of(2, Verdict::holds)}, "1/2");
  other_seed.settings.seed = 1;
  EXPECT_THROW(merge_reports({{"a", a}, {"b", other_seed}}), ContractError);
  Report other_contract = part({case_of(2, Verdict::holds)}, "1/2");
  other_contract.contracts[0].sha256 = "def";
  EXPECT_THROW(merge_reports({{"a", a}, {"b", other_contract}}), ContractError);
  Report other_gpu = part({case_of(2, Verdict::holds)}, "1/2");
  other_gpu.environment.torch.version = "2.12.0";
  EXPECT_THROW(merge_reports({{"a", a}, {"b", other_gpu}}), ContractError);
  EXPECT_THROW(merge_reports({{"a", a}, {"b", a}}), ContractError);
  Report stranger = part({case_of(9, Verdict::holds)}, "1/2");  // position 8 of a plan of 3
  EXPECT_THROW(merge_reports({{"a", a}, {"b", stranger}}), ContractError);
  Report other_plan = part({case_of(2, Verdict::holds)}, "1/2");  // another --filter, say
  other_plan.plan->sha256 = "another-plan";
  EXPECT_THROW(merge_reports({{"a", a}, {"b", other_plan}}), ContractError);
  Report unplanned = part({case_of(2, Verdict::holds)}, "1/2");  // written before 3.1
  unplanned.plan.reset();
  try {
    merge_reports({{"a", a}, {"old.json", unplanned}});
    ADD_FAILURE() << "a part without a plan was merged";
  } catch (const ContractError& e) {
    EXPECT_NE(std::string(e.what()).find("old.json: records no plan"), std::string::npos)
        << e.what();
  }
  // Negative control: the same parts, compatible, merge.
  EXPECT_NO_THROW(merge_reports({{"a", a}, {"b", part({case_of(2, Verdict::holds)}, "1/2")}}));
}

}  // namespace report_merge_test_file
}  // namespace samebits
