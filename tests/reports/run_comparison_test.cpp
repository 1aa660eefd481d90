// Comparing a run with an earlier one: verdict changes (a subset that missed an earlier violation
// is not one), drift case by case and output by output, the platform differences named, and the
// drift of cases known to vary reported apart, without gating, as are checks seen both ways.
#include "reports/model/run_comparison.h"

#include <gtest/gtest.h>

#include "reports/model/outcome.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace run_comparison_test_file {}
using namespace run_comparison_test_file;
namespace run_comparison_test_file {

CaseResult case_of(const std::string& check, int n, Verdict v, const std::string& digest) {
  CaseResult c;
  c.id = "sum/" + check + "/aten/cpu/N=" + std::to_string(n);
  c.contract = "sum";
  c.check = check;
  c.kind = check == "determinism" ? CheckKind::determinism : CheckKind::layout_invariance;
  c.impl = "aten";
  c.device = "cpu";
  c.verdict = v;
  c.outputs.push_back({"values", "b" + digest, "v" + digest, {}});
  return c;
}

Report run(std::vector<CaseResult> cases, std::int64_t planned_each = 0) {
  Report r;
  r.environment.device = "cpu";
  r.environment.torch.version = "2.11.0";
  r.environment.host.cpu = "X";
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
  now.environment.torch.version = "2.12.0";
  const RunComparison c = compare_runs(baseline_of(earlier(), "base"), now, "now");
  EXPECT_EQ(c.platform_differences, std::vector<std::string>{"torch: 2.11.0 there, 2.12.0 here"});
  EXPECT_FALSE(c.gates(true));
  EXPECT_NE(comparison_text(c).find("recorded on another platform (torch: 2.11.0 there"),
            std::string::npos);
}

// An implementation whose determinism check was violated: every case of it is recorded as varying,
// and its drift is listed apart and does not gate --fail-on-drift. Negative control: the same
// drift against a baseline where the implementation was deterministic gates.
TEST(RunComparison, DriftOfAVaryingImplementationDoesNotGate) {
  const Report flaky = run({case_of("determinism", 1, Verdict::holds, "1"),
                            case_of("determinism", 2, Verdict::violated, "2"),
                            case_of("layout", 1, Verdict::holds, "3"),
                            case_of("layout", 2, Verdict::violated, "4")});
  const Baseline varying = baseline_of(flaky, "base");
  for (const auto& [id, record] : varying.cases) EXPECT_TRUE(record.varies) << id;
  const Report now = run({case_of("determinism", 1, Verdict::holds, "1"),
                          case_of("determinism", 2, Verdict::violated, "2"),
                          case_of("layout", 1, Verdict::holds, "other bits"),
                          case_of("layout", 2, Verdict::violated, "4")});
  const RunComparison c = compare_runs(varying, now, "now");
  EXPECT_TRUE(c.drift.empty());
  ASSERT_EQ(c.varied.size(), 1u);
  EXPECT_EQ(c.varied[0].id, "sum/layout/aten/cpu/N=1");
  EXPECT_FALSE(c.gates(true));
  EXPECT_NE(comparison_text(c).find("VARIES   sum/layout/aten/cpu/N=1: outputs values"),
            std::string::npos)
      << comparison_text(c);
  EXPECT_EQ(Json(c)["varied"][0]["id"], "sum/layout/aten/cpu/N=1");

  Report deterministic = flaky;
  deterministic.cases[1].verdict = Verdict::holds;
  deterministic.checks = judge_checks(deterministic.cases, {});
  const Baseline steady = baseline_of(deterministic, "base");
  for (const auto& [id, record] : steady.cases) EXPECT_FALSE(record.varies) << id;
  Report steady_now = now;
  steady_now.cases[1].verdict = Verdict::holds;
  steady_now.checks = judge_checks(steady_now.cases, {});
  const RunComparison gated = compare_runs(steady, steady_now, "now");
  ASSERT_EQ(gated.drift.size(), 1u);
  EXPECT_TRUE(gated.varied.empty());
  EXPECT_TRUE(gated.gates(true));
}

// A second run's other digests mark the case varying (add_run), the mark survives the file
// (to_json, baseline_file_text, parse_baseline), and a file of 1.1 (also_seen, no mark) reads as
// varying.
TEST(RunComparison, OtherDigestsInAnotherRunMarkTheCaseVarying) {
  Baseline b = baseline_of(earlier(), "base");
  Report second = earlier();
  second.cases[2].outputs[0].variant_sha256 = "v-second";
  const AddedRun added = add_run(b, second, "second");
  EXPECT_EQ(added.varied_cases, std::vector<std::string>{second.cases[2].id});
  EXPECT_TRUE(added.varying_checks.empty());
  EXPECT_TRUE(b.cases.at(second.cases[2].id).varies);
  EXPECT_FALSE(b.cases.at(second.cases[0].id).varies);

  const Json written = b;
  EXPECT_EQ(written["schema_version"], kBaselineSchemaVersion);
  EXPECT_EQ(written["cases"][second.cases[2].id]["varies"], true);
  EXPECT_FALSE(written["cases"][second.cases[0].id].contains("varies"));
  const Baseline read = parse_baseline(baseline_file_text(b), "written.json");
  EXPECT_TRUE(read.cases.at(second.cases[2].id).varies);
  EXPECT_FALSE(read.cases.at(second.cases[0].id).varies);

  Json older = written;
  older["schema_version"] = "1.1.0";
  older["cases"][second.cases[2].id].erase("varies");
  EXPECT_TRUE(parse_baseline(older.dump(), "older.json").cases.at(second.cases[2].id).varies);
  older["cases"][second.cases[2].id]["varies"] = "yes";
  try {
    parse_baseline(older.dump(), "older.json");
    ADD_FAILURE() << "a varies mark that is not a boolean was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("varies"), std::string::npos) << e.what();
  }
}

// `baseline update` of a rerun whose bits the baseline already knows keeps the case's record,
// its mark and its other digests; other bits replace them, and a varying case stays varying while a
// steady one stays steady.
TEST(RunComparison, AnUpdateKeepsTheRecordOfKnownBits) {
  Baseline b = baseline_of(earlier(), "base");
  Report second = earlier();
  second.cases[2].outputs[0].variant_sha256 = "v-second";
  add_run(b, second, "second");
  const std::string id = second.cases[2].id;
  EXPECT_TRUE(replace_from(b, second, "rerun").empty());
  EXPECT_TRUE(b.cases.at(id).varies);
  EXPECT_EQ(b.cases.at(id).also_seen.size(), 1u);
  second.cases[2].outputs[0].variant_sha256 = "v-third";
  second.cases[0].outputs[0].variant_sha256 = "v-other";
  EXPECT_EQ(replace_from(b, second, "rerun"), (std::vector<std::string>{second.cases[0].id, id}));
  EXPECT_TRUE(b.cases.at(id).varies);
  EXPECT_TRUE(b.cases.at(id).also_seen.empty());
  EXPECT_EQ(b.cases.at(id).outputs[0].variant_sha256, "v-third");
  EXPECT_FALSE(b.cases.at(second.cases[0].id).varies);
}

// A check that held in one run and was violated in another is recorded as varying (add_run),
// survives the file as "varies" (schema 1.3), is never a verdict change whichever way a later run
// goes, and stays varying through `baseline update` (replace_from). Negative control: the same
// later runs against a baseline that recorded one verdict change it.
TEST(RunComparison, ACheckSeenBothWaysIsRecordedAsVaryingAndNeverGates) {
  Baseline b = baseline_of(earlier(), "base");
  const Report flipped = run({case_of("determinism", 1, Verdict::violated, "1"),
                              case_of("determinism", 2, Verdict::holds, "2"),
                              case_of("layout", 1, Verdict::holds, "3"),
                              case_of("layout", 2, Verdict::violated, "4")});
  const AddedRun added = add_run(b, flipped, "flipped");
  EXPECT_EQ(added.varying_checks, std::vector<std::string>{"sum/determinism/aten"});
  EXPECT_EQ(b.checks.at("sum/determinism/aten"), Expectation::unknown);
  EXPECT_EQ(b.checks.at("sum/layout/aten"), Expectation::violated);
  // A third run the first way: still varying, not listed again.
  EXPECT_TRUE(add_run(b, earlier(), "third").varying_checks.empty());
  EXPECT_EQ(b.checks.at("sum/determinism/aten"), Expectation::unknown);

  const Json written = b;
  EXPECT_EQ(written["schema_version"], "1.3.0");
  EXPECT_EQ(written["checks"]["sum/determinism/aten"], "varies");
  const Baseline read = parse_baseline(baseline_file_text(b), "written.json");
  EXPECT_EQ(read.checks.at("sum/determinism/aten"), Expectation::unknown);

  for (const Report* now : {&earlier(), &flipped}) {
    SCOPED_TRACE(now == &flipped ? "a later run like the flipped one"
                                 : "a later run like the earlier one");
    const RunComparison c = compare_runs(read, *now, "now");
    EXPECT_TRUE(c.verdict_changes.empty());
    EXPECT_EQ(c.checks_varying, std::vector<std::string>{"sum/determinism/aten"});
    EXPECT_EQ(c.checks_compared, 1);
    EXPECT_FALSE(c.gates(false));
    EXPECT_NE(comparison_text(c).find("1 checks recorded as varying on base (seen both ways "
                                      "there): not compared\n  VARIES   sum/determinism/aten\n"),
              std::string::npos)
        << comparison_text(c);
    // Negative control: a baseline of the other run alone records a verdict, which gates.
    const Report& other = now == &flipped ? earlier() : flipped;
    const RunComparison gated = compare_runs(baseline_of(other, "one"), *now, "now");
    ASSERT_EQ(gated.verdict_changes.size(), 1u);
    EXPECT_EQ(gated.verdict_changes[0].check, "sum/determinism/aten");
    EXPECT_TRUE(gated.checks_varying.empty());
    EXPECT_TRUE(gated.gates(false));
  }

  // An update keeps the record: one more verdict is no evidence that the check stopped varying.
  Baseline updated = read;
  replace_from(updated, flipped, "rerun");
  EXPECT_EQ(updated.checks.at("sum/determinism/aten"), Expectation::unknown);
  // Control: a steady check takes the rerun's verdict.
  Report layout_holds = earlier();
  layout_holds.cases[3].verdict = Verdict::holds;
  layout_holds.checks = judge_checks(layout_holds.cases, {});
  replace_from(updated, layout_holds, "rerun");
  EXPECT_EQ(updated.checks.at("sum/layout/aten"), Expectation::holds);
}

}  // namespace run_comparison_test_file
}  // namespace samebits
