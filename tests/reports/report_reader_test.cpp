// Reading reports back: a report with every field survives JSON and back unchanged, the committed
// example reports (a run and sweeps, schema 2.0) load whole, and a bad report names its path.
#include "reports/report_reader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "contracts/baseline.h"
#include "contracts/contract_error.h"
#include "reports/json_report.h"

namespace samebits {
namespace {

Report every_field() {
  Report r;
  r.created = "2026-11-24T00:00:00Z";
  r.tool = {{"name", "samebits"}, {"version", "0.1.0"}};
  r.command = Json::array({"samebits", "run"});
  r.settings = {{"device", "cpu"}, {"seed", "18446744073709551615"}};
  r.environment = {{"device", "cpu"}, {"torch", {{"version", "2.11.0"}}}};
  r.contracts.push_back({"sum", "embedded:sum.json", "ab", "sum", "d", "{}"});
  CaseResult c;
  c.id = "sum/determinism/aten/cpu/N=3";
  c.contract = "sum";
  c.check = "determinism";
  c.kind = CheckKind::layout_invariance;
  c.impl = "aten";
  c.device = "cpu";
  c.params = {{"N", 3}};
  c.seed = 18446744073709551615ull;  // 2^64 - 1: every bit kept
  c.verdict = Verdict::violated;
  c.expected = Expectation::violated;
  c.expected_from = ExpectationSource::observation;
  c.observed_on = "xeon";
  c.reason = "r";
  c.baseline = "contiguous";
  c.variant = "padded";
  c.comparison.mode = CompareMode::ulp;
  c.comparison.max_ulp = 2;
  c.comparison.rtol = 0.5;
  c.comparison.max_mismatches = 3;
  c.comparison.outputs = {"values"};
  OutputResult o{"values", "aa", "bb", {}};
  o.diff.mode = CompareMode::ulp;
  o.diff.dtype = "float32";
  o.diff.shape = {2, 3};
  o.diff.numel = 6;
  o.diff.mismatched = 1;
  o.diff.mismatch_fraction = 1.0 / 6;
  o.diff.within = false;
  o.diff.max_abs_error = std::numeric_limits<double>::infinity();
  o.diff.max_rel_error = 0.25;
  o.diff.max_ulp = 7;
  o.diff.ulp_histogram = {{"1", 1}, {"2-3", 0}};
  o.diff.nonfinite_mismatches = 1;
  o.diff.first_mismatches.push_back({{0, 1}, 1.5, std::nan(""), "0x3fc00000", "0x7fc00000", {}});
  o.diff.tolerance = "bitwise";
  c.outputs.push_back(o);
  c.variant_kernels.push_back({"reduce_kernel<float>", {1, 2, 3}, {128, 1, 1}, 32, 0, 16, 2, 99});
  c.baseline_kernels = c.variant_kernels;
  c.variant_properties = {{"N", 3}, {"row_stride", 4}};
  c.duration_ms = 1.25;
  r.cases.push_back(c);
  CheckResult g;
  g.contract = "sum";
  g.check = "determinism";
  g.impl = "aten";
  g.device = "cpu";
  g.expected_from = ExpectationSource::none;
  g.nearest_observed = Expectation::holds;
  g.observed = Verdict::violated;
  g.outcome = Outcome::finding;
  g.planned = 4;
  g.cases = 1;
  g.violated = 1;
  g.violations_by_axis = {{"N", "3", 1, 1}};
  r.checks.push_back(g);
  r.summary.cases = 1;
  r.summary.findings = 1;
  r.summary.duration_s = 0.5;
  r.baseline_comparison = {{"before", "x"}};
  return r;
}

TEST(ReportReader, EveryFieldSurvivesTheRoundTrip) {
  const Json written = report_to_json(every_field());
  const Report back = report_from_json(written, "mem");
  EXPECT_EQ(report_to_json(back).dump(), written.dump());
  EXPECT_EQ(back.cases[0].seed, 18446744073709551615ull);
  EXPECT_TRUE(std::isnan(back.cases[0].outputs[0].diff.first_mismatches[0].variant));
}

// Negative control for the round trip: a reader that dropped a field would not compare equal.
TEST(ReportReader, TheRoundTripComparisonSeesAChange) {
  const Json written = report_to_json(every_field());
  Report back = report_from_json(written, "mem");
  back.cases[0].variant_kernels[0].registers = 33;
  EXPECT_NE(report_to_json(back).dump(), written.dump());
}

// 2.3: crashed and timed_out verdicts and their counts read back; a 2.2 report without the counts
// reads them as 0 (the example reports, 2.x, are the older layout's).
TEST(ReportReader, CrashedAndTimedOutSurviveTheRoundTrip) {
  Report r = every_field();
  r.cases.push_back(r.cases[0]);
  r.cases[0].verdict = Verdict::crashed;
  r.cases[1].verdict = Verdict::timed_out;
  r.checks[0].observed = Verdict::crashed;
  r.checks[0].crashed = 1;
  r.checks[0].timed_out = 1;
  r.summary.crashed = 1;
  r.summary.timed_out = 1;
  const Json written = report_to_json(r);
  EXPECT_EQ(written["cases"][1]["verdict"], "timed_out");
  const Report back = report_from_json(written, "mem");
  EXPECT_EQ(back.cases[0].verdict, Verdict::crashed);
  EXPECT_EQ(back.cases[1].verdict, Verdict::timed_out);
  EXPECT_EQ(back.summary.timed_out, 1);
  EXPECT_EQ(report_to_json(back).dump(), written.dump());

  Json older = written;
  older["schema_version"] = "2.2.0";
  older["summary"].erase("crashed");
  older["summary"].erase("timed_out");
  older["checks"][0].erase("crashed");
  const Report old = report_from_json(older, "old.json");
  EXPECT_EQ(old.summary.crashed, 0);
  EXPECT_EQ(old.checks[0].crashed, 0);
}

const std::filesystem::path kExamples =
    std::filesystem::path(SAMEBITS_SOURCE_DIR) / "reports/examples";

TEST(ReportReader, TheExampleRunLoadsWhole) {
  for (const char* name : {"h100.json.gz", "cpu.json.gz"}) {
    const Json j = read_report_json((kExamples / name).string());
    const Report r = report_from_json(j, name);
    EXPECT_EQ(static_cast<std::int64_t>(r.cases.size()), r.summary.cases) << name;
    EXPECT_EQ(r.checks.size(), j["checks"].size()) << name;
    // Fields added after 2.0 take their earlier meaning: promises, and planned = run.
    EXPECT_EQ(r.checks[0].planned, r.checks[0].cases) << name;
  }
}

// Every committed baseline loads as `samebits run --baseline` loads it (a hand-spliced baseline
// once held two skipped cases, which the reader refuses and the writer never writes).
TEST(BaselineFiles, TheCommittedBaselinesLoad) {
  int files = 0;
  const auto dir = std::filesystem::path(SAMEBITS_SOURCE_DIR) / "reports/baselines";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string path = entry.path().string();
    const Baseline b = load_baseline_file(path);
    EXPECT_FALSE(b.cases.empty()) << path;
    ++files;
  }
  EXPECT_GE(files, 2);
}

// Control: a skipped case in a baseline is refused, naming its path.
TEST(BaselineFiles, ASkippedCaseIsRefused) {
  const std::string text =
      R"({"schema": "samebits.baseline", "schema_version": "1.1.0", "name": "x", "platform": {},
          "recorded": {}, "checks": {}, "cases": {"a/b/c/cpu/n=1": {"verdict": "skipped",
          "outputs": []}}})";
  try {
    parse_baseline(text, "x.json");
    FAIL() << "accepted a skipped case";
  } catch (const ContractError& e) {
    EXPECT_NE(std::string(e.what()).find("got \"skipped\""), std::string::npos) << e.what();
  }
}

// A sweep's dispatch map read back renders to the same JSON, findings (recomputed) included.
TEST(ReportReader, ExampleSweepsDispatchMapsRoundTrip) {
  int sweeps = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kExamples / "sweeps")) {
    const std::string path = entry.path().string();
    if (path.size() < 8 || path.substr(path.size() - 8) != ".json.gz") continue;
    const Json j = read_report_json(path);
    const Report r = report_from_json(j, path);
    ASSERT_TRUE(r.dispatch.has_value()) << path;
    EXPECT_EQ(dispatch_to_json(*r.dispatch).dump(), j["dispatch"].dump()) << path;
    ++sweeps;
  }
  EXPECT_GT(sweeps, 0);
}

TEST(ReportReader, ABadReportNamesThePath) {
  Json j = report_to_json(every_field());
  j["cases"][0]["verdict"] = "maybe";
  try {
    report_from_json(j, "r.json");
    FAIL() << "read a bad verdict";
  } catch (const ContractError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("r.json: /cases/0/verdict: \"maybe\" is not one of: holds, violated"),
              std::string::npos)
        << m;
  }
  j = report_to_json(every_field());
  j["schema_version"] = "1.2.0";
  EXPECT_THROW(report_from_json(j, "r.json"), ContractError);
  EXPECT_THROW(report_from_json(Json{{"schema", "samebits.baseline"}}, "b.json"), ContractError);
  EXPECT_THROW(read_report_file("/nonexistent/r.json"), ContractError);
}

}  // namespace
}  // namespace samebits
