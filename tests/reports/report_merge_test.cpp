// Merging the reports of a run's shares: cases back in plan order, checks judged over all of them
// (a check split across shares that holds in each is judged whole), and parts that do not belong
// together refused.
#include "reports/report_merge.h"

#include <gtest/gtest.h>

#include "contracts/contract_error.h"

namespace samebits {
namespace {

CaseResult case_of(int n, Verdict v) {
  CaseResult c;
  c.id = "sum/layout/aten/cpu/N=" + std::to_string(n);
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
  r.environment = {{"device", "cpu"}, {"torch", {{"version", "2.11.0"}}}};
  r.settings = {{"device", "cpu"}, {"seed", "0"}, {"shard", shard}};
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
  const Report m = merge_reports({{"a.json", a}, {"b.json", b}}, kOrder, kPlanned);
  ASSERT_EQ(m.cases.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(m.cases[i].id, kOrder[i]);
  ASSERT_EQ(m.checks.size(), 1u);
  EXPECT_EQ(m.checks[0].outcome, Outcome::as_expected);
  EXPECT_EQ(m.summary.exit_code, 0);
  EXPECT_FALSE(m.settings.contains("shard"));
  EXPECT_EQ(m.settings["merged_from"].size(), 2u);
}

// Every share holding where a violation was recorded: only the merge may say "now holds".
TEST(ReportMerge, OnlyTheWholeMergeSaysNowHolds) {
  const Report a = part({case_of(1, Verdict::holds), case_of(3, Verdict::holds)}, "0/2");
  const Report b = part({case_of(2, Verdict::holds)}, "1/2");
  EXPECT_EQ(a.summary.exit_code, 0);
  EXPECT_EQ(b.summary.exit_code, 0);
  const Report m = merge_reports({{"a.json", a}, {"b.json", b}}, kOrder, kPlanned);
  EXPECT_EQ(m.checks[0].outcome, Outcome::stale_expectation);
  EXPECT_EQ(m.summary.exit_code, 1);
  // With a share missing the merge is still a subset.
  EXPECT_EQ(merge_reports({{"a.json", a}}, kOrder, kPlanned).checks[0].outcome,
            Outcome::not_observed);
}

TEST(ReportMerge, PartsThatDoNotBelongTogetherAreRefused) {
  const Report a = part({case_of(1, Verdict::holds)}, "0/2");
  Report other_seed = part({case_of(2, Verdict::holds)}, "1/2");
  other_seed.settings["seed"] = "1";
  EXPECT_THROW(merge_reports({{"a", a}, {"b", other_seed}}, kOrder, kPlanned), ContractError);
  Report other_contract = part({case_of(2, Verdict::holds)}, "1/2");
  other_contract.contracts[0].sha256 = "def";
  EXPECT_THROW(merge_reports({{"a", a}, {"b", other_contract}}, kOrder, kPlanned), ContractError);
  Report other_gpu = part({case_of(2, Verdict::holds)}, "1/2");
  other_gpu.environment["torch"]["version"] = "2.12.0";
  EXPECT_THROW(merge_reports({{"a", a}, {"b", other_gpu}}, kOrder, kPlanned), ContractError);
  EXPECT_THROW(merge_reports({{"a", a}, {"b", a}}, kOrder, kPlanned), ContractError);
  Report stranger = part({case_of(9, Verdict::holds)}, "1/2");
  EXPECT_THROW(merge_reports({{"a", a}, {"b", stranger}}, kOrder, kPlanned), ContractError);
  // Negative control: the same parts, compatible, merge.
  EXPECT_NO_THROW(merge_reports({{"a", a}, {"b", part({case_of(2, Verdict::holds)}, "1/2")}},
                                kOrder, kPlanned));
}

}  // namespace
}  // namespace samebits
