// The gate: each group's verdicts against its expectation (as expected, new violation, stale,
// informational, not run, errored), the exit code, grouping, and per-axis violation tallies.
#include "reports/model/outcome.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace outcome_test_file {}
using namespace outcome_test_file;
namespace outcome_test_file {

Expectation expectation(const std::string& name) {
  const auto& names = expectation_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<Expectation>(i);
  }
  throw std::invalid_argument(name);
}

// Checks are grouped by name; every case here is of kind determinism.
CaseResult case_with(Verdict verdict, const std::string& expected, Json params = Json::object(),
                     const std::string& check = "determinism") {
  CaseResult c;
  c.contract = "sum";
  c.check = check;
  c.kind = CheckKind::determinism;
  c.impl = "aten";
  c.device = "cpu";
  c.expected = expectation(expected);
  c.verdict = verdict;
  c.params = std::move(params);
  return c;
}

struct Rule {
  std::string name;
  std::string expected;
  std::vector<Verdict> verdicts;
  Outcome outcome;
  std::string observed;
  int exit_code;
  ExpectationSource from = ExpectationSource::promise;
  std::int64_t planned = 0;  // the check's cases in the whole plan; 0: exactly those run
  bool recorded_varying = false;  // the covering platform records the check as "varies"
};
void PrintTo(const Rule& p, std::ostream* os) {
  *os << p.name;
}

class GateTest : public ::testing::TestWithParam<Rule> {};

TEST_P(GateTest, OutcomeAndExitCode) {
  const Rule& rule = GetParam();
  std::vector<CaseResult> cases;
  for (auto v : rule.verdicts) {
    cases.push_back(case_with(v, rule.expected));
    cases.back().expected_from = rule.from;
    cases.back().recorded_varying = rule.recorded_varying;
  }
  PlannedCounts planned;
  if (rule.planned > 0) planned[planned_key("sum", "determinism", "aten", "cpu")] = rule.planned;
  const auto checks = judge_checks(cases, planned);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(to_string(checks[0].outcome), to_string(rule.outcome));
  EXPECT_EQ(to_string(checks[0].observed), rule.observed);
  EXPECT_EQ(to_string(checks[0].expected), rule.expected);
  EXPECT_EQ(checks[0].recorded_varying, rule.recorded_varying);  // for the reports to say so
  EXPECT_EQ(summarize(cases, checks).exit_code, rule.exit_code);
}

using V = Verdict;
const Rule kRules[] = {
    {"HoldsAsExpected", "holds", {V::holds, V::holds}, Outcome::as_expected, "holds", 0},
    {"NewViolation",
     "holds",
     {V::holds, V::violated},
     Outcome::unexpected_violation,
     "violated",
     1},
    {"ViolatedAsExpected",
     "violated",
     {V::holds, V::violated},
     Outcome::as_expected,
     "violated",
     0},
    {"StaleExpectation", "violated", {V::holds, V::holds}, Outcome::stale_expectation, "holds", 1},
    {"UnknownViolated", "unknown", {V::violated}, Outcome::informational, "violated", 0},
    {"UnknownHolds", "unknown", {V::holds}, Outcome::informational, "holds", 0},
    // A check a covering platform recorded as varying (seen both ways there): either way, no gate.
    // The negative control, the same platform recording "holds", is ObservationNewViolation below.
    {"RecordedVaryingViolated",
     "unknown",
     {V::holds, V::violated},
     Outcome::informational,
     "violated",
     0,
     ExpectationSource::observation,
     0,
     true},
    {"RecordedVaryingHolds",
     "unknown",
     {V::holds, V::holds},
     Outcome::informational,
     "holds",
     0,
     ExpectationSource::observation,
     0,
     true},
    // A subset of a varying check is not judged either: nothing was expected of the whole.
    {"RecordedVaryingSubsetHolds",
     "unknown",
     {V::holds},
     Outcome::informational,
     "holds",
     0,
     ExpectationSource::observation,
     4,
     true},
    {"AllSkipped", "holds", {V::skipped, V::skipped}, Outcome::not_run, "skipped", 0},
    {"SkippedCasesDoNotCount", "holds", {V::skipped, V::holds}, Outcome::as_expected, "holds", 0},
    {"StaleDespiteSkips",
     "violated",
     {V::skipped, V::holds},
     Outcome::stale_expectation,
     "holds",
     1},
    {"ErrorLeavesHoldsUndecided", "holds", {V::holds, V::error}, Outcome::errored, "error", 3},
    {"ErrorLeavesStaleUndecided", "violated", {V::holds, V::error}, Outcome::errored, "error", 3},
    {"ViolationDecidesDespiteAnError",
     "violated",
     {V::error, V::violated},
     Outcome::as_expected,
     "violated",
     3},
    {"NewViolationBeatsAnError",
     "holds",
     {V::error, V::violated},
     Outcome::unexpected_violation,
     "violated",
     1},
    // No recorded platform covers this one: whatever ATen did is a finding, never a failure.
    {"FindingViolated",
     "unknown",
     {V::holds, V::violated},
     Outcome::finding,
     "violated",
     0,
     ExpectationSource::none},
    {"FindingHolds", "unknown", {V::holds}, Outcome::finding, "holds", 0, ExpectationSource::none},
    {"FindingAllSkipped",
     "unknown",
     {V::skipped},
     Outcome::not_run,
     "skipped",
     0,
     ExpectationSource::none},
    {"FindingErrored",
     "unknown",
     {V::holds, V::error},
     Outcome::errored,
     "error",
     3,
     ExpectationSource::none},
    // An observation gates like a promise on the platform it was recorded on.
    {"ObservationNewViolation",
     "holds",
     {V::violated},
     Outcome::unexpected_violation,
     "violated",
     1,
     ExpectationSource::observation},
    // A subset (2 of 8 planned cases) that meets no expected violation is not judged; the whole
    // check (8 of 8) that meets none is stale; a subset that meets one is as expected.
    {"SubsetMissesExpectedViolation",
     "violated",
     {V::holds, V::holds},
     Outcome::not_observed,
     "holds",
     0,
     ExpectationSource::observation,
     8},
    {"WholeCheckMissesExpectedViolation",
     "violated",
     {V::holds, V::holds},
     Outcome::stale_expectation,
     "holds",
     1,
     ExpectationSource::observation,
     2},
    {"SubsetMeetsExpectedViolation",
     "violated",
     {V::violated},
     Outcome::as_expected,
     "violated",
     0,
     ExpectationSource::observation,
     8},
    {"SubsetNewViolationStillFails",
     "holds",
     {V::violated},
     Outcome::unexpected_violation,
     "violated",
     1,
     ExpectationSource::promise,
     8},
    // A crashed or timed-out case (run --isolate) could not run: exit 3, like an error.
    {"CrashedCaseCouldNotRun", "holds", {V::holds, V::crashed}, Outcome::errored, "crashed", 3},
    {"TimedOutCaseCouldNotRun",
     "holds",
     {V::holds, V::timed_out},
     Outcome::errored,
     "timed_out",
     3},
    {"CrashShowsBeforeATimeoutAndAnError",
     "holds",
     {V::error, V::timed_out, V::crashed},
     Outcome::errored,
     "crashed",
     3},
    {"ViolationOutranksACrash",
     "holds",
     {V::crashed, V::violated},
     Outcome::unexpected_violation,
     "violated",
     1},
    {"CrashWithoutExpectationIsErrored",
     "unknown",
     {V::holds, V::crashed},
     Outcome::errored,
     "crashed",
     3,
     ExpectationSource::none},
};

INSTANTIATE_TEST_SUITE_P(Outcome, GateTest, ::testing::ValuesIn(kRules),
                         [](const ::testing::TestParamInfo<Rule>& info) {
                           return info.param.name;
                         });

TEST(Gate, FailingOutcomes) {
  EXPECT_TRUE(fails_gate(Outcome::unexpected_violation));
  EXPECT_TRUE(fails_gate(Outcome::stale_expectation));
  EXPECT_FALSE(fails_gate(Outcome::as_expected));
  EXPECT_FALSE(fails_gate(Outcome::informational));
  EXPECT_FALSE(fails_gate(Outcome::not_run));
  EXPECT_FALSE(fails_gate(Outcome::errored));
  EXPECT_FALSE(fails_gate(Outcome::finding));
  EXPECT_FALSE(fails_gate(Outcome::not_observed));
}

TEST(Gate, GroupsByCheckImplementationAndDeviceInFirstSeenOrder) {
  std::vector<CaseResult> cases;
  cases.push_back(case_with(V::holds, "holds", Json::object(), "layout_invariance"));
  cases.push_back(case_with(V::holds, "holds", Json::object(), "determinism"));
  cases.push_back(case_with(V::violated, "holds", Json::object(), "layout_invariance"));
  CaseResult on_cuda = case_with(V::holds, "holds", Json::object(), "determinism");
  on_cuda.device = "cuda";
  cases.push_back(on_cuda);
  CaseResult other_impl = case_with(V::holds, "holds", Json::object(), "determinism");
  other_impl.impl = "fast";
  cases.push_back(other_impl);
  const auto checks = judge_checks(cases);
  ASSERT_EQ(checks.size(), 4u);
  EXPECT_EQ(checks[0].check, "layout_invariance");
  EXPECT_EQ(checks[0].cases, 2);
  EXPECT_EQ(checks[0].violated, 1);
  EXPECT_EQ(checks[1].check, "determinism");
  EXPECT_EQ(checks[1].device, "cpu");
  EXPECT_EQ(checks[2].device, "cuda");
  EXPECT_EQ(checks[3].impl, "fast");
}

TEST(Gate, SummaryCounts) {
  const std::vector<CaseResult> cases = {
      case_with(V::holds, "holds", Json::object(), "a"),
      case_with(V::violated, "holds", Json::object(), "b"),
      case_with(V::skipped, "holds", Json::object(), "c"),
      case_with(V::violated, "unknown", Json::object(), "d"),
      case_with(V::violated, "violated", Json::object(), "e"),
  };
  const Summary s = summarize(cases, judge_checks(cases));
  EXPECT_EQ(s.cases, 5);
  EXPECT_EQ(s.held, 1);
  EXPECT_EQ(s.violated, 3);
  EXPECT_EQ(s.skipped, 1);
  EXPECT_EQ(s.errors, 0);
  EXPECT_EQ(s.checks, 5);
  EXPECT_EQ(s.as_expected, 2);    // a, e
  EXPECT_EQ(s.unexpected, 1);     // b
  EXPECT_EQ(s.informational, 1);  // d
  EXPECT_EQ(s.exit_code, kExitUnexpected);
}

TEST(Gate, ExitCodesAreTheDocumentedOnes) {
  EXPECT_EQ(kExitAsExpected, 0);
  EXPECT_EQ(kExitUnexpected, 1);
  EXPECT_EQ(kExitUsage, 2);
  EXPECT_EQ(kExitInfrastructure, 3);
}

TEST(ViolationsByAxis, TalliesAxesWithSeveralValues) {
  // N takes 1 and 2 (violated only at 2, twice); dtype takes one value and is left out; layout
  // takes two. A skipped and an errored case count nowhere.
  const std::vector<CaseResult> cases = {
      case_with(V::holds, "holds", Json::parse(R"({"N": 1, "dtype": "f32", "layout": "a"})")),
      case_with(V::violated, "holds", Json::parse(R"({"N": 2, "dtype": "f32", "layout": "a"})")),
      case_with(V::violated, "holds", Json::parse(R"({"N": 2, "dtype": "f32", "layout": "b"})")),
      case_with(V::skipped, "holds", Json::parse(R"({"N": 3, "dtype": "f32", "layout": "b"})")),
      case_with(V::error, "holds", Json::parse(R"({"N": 4, "dtype": "f32", "layout": "c"})")),
  };
  const auto checks = judge_checks(cases);
  ASSERT_EQ(checks.size(), 1u);
  const auto& t = checks[0].violations_by_axis;
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].axis, "N");
  EXPECT_EQ(t[0].value, "1");
  EXPECT_EQ(t[0].violated, 0);
  EXPECT_EQ(t[0].total, 1);
  EXPECT_EQ(t[1].axis, "N");
  EXPECT_EQ(t[1].value, "2");
  EXPECT_EQ(t[1].violated, 2);
  EXPECT_EQ(t[1].total, 2);
  EXPECT_EQ(t[2].axis, "layout");
  EXPECT_EQ(t[2].value, "a");
  EXPECT_EQ(t[2].violated, 1);
  EXPECT_EQ(t[2].total, 2);
  EXPECT_EQ(t[3].value, "b");
  EXPECT_EQ(t[3].violated, 1);
  EXPECT_EQ(t[3].total, 1);
}

TEST(ViolationsByAxis, ArrayValuesAreTheirJson) {
  const std::vector<CaseResult> cases = {
      case_with(V::violated, "holds", Json::parse(R"({"lengths": [3, 5]})")),
      case_with(V::holds, "holds", Json::parse(R"({"lengths": [4]})")),
  };
  const auto t = judge_checks(cases)[0].violations_by_axis;
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].value, "[3,5]");
  EXPECT_EQ(t[1].value, "[4]");
}

}  // namespace outcome_test_file
}  // namespace samebits
