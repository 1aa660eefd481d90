// Reading reports back: a report with every field survives JSON and back unchanged, the committed
// example reports (a run and sweeps, schema 2.x) load whole and read the same once rewritten in the
// compact 3.0 layout, and a bad report names its path.
#include "reports/model/report_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "common/errors.h"
#include "common/file_text.h"
#include "reports/model/baseline.h"
#include "reports/model/dispatch_json.h"
#include "reports/model/json_report.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace report_reader_test_file {}
using namespace report_reader_test_file;
namespace report_reader_test_file {

Report every_field() {
  Report r;
  r.created = "2026-11-24T00:00:00Z";
  r.tool.version = "0.1.0";
  r.command = {"samebits", "run"};
  r.settings.device = "cpu";
  r.settings.seed = 18446744073709551615u;
  r.environment.device = "cpu";
  r.environment.torch.version = "2.11.0";
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
  RunComparison b;
  b.before = "h100";
  b.after = "this run";
  b.baseline_file = "h100.json.gz";
  b.before_platform.device = "cuda";
  b.before_platform.gpu = "NVIDIA H100 80GB HBM3";
  b.after_platform.device = "cpu";
  b.platform_differences = {"device: cuda here cpu"};
  b.verdict_changes = {{"sum/determinism/aten", Expectation::holds, Expectation::violated}};
  b.not_judged = {"sum/layout/aten"};
  b.checks_varying = {"attention/gradient_determinism/aten.efficient"};
  b.drift = {{"sum/determinism/aten/cpu/N=3", Expectation::holds, Expectation::violated, {"out"}}};
  b.varied = {{"sum/layout/aten/cpu/N=1", Expectation::holds, Expectation::holds, {"*", "lse"}}};
  b.matched_also_seen = {"sum/layout/aten/cpu/N=2"};
  b.checks_compared = 4;
  b.cases_compared = 5;
  b.checks_only_before = {"sum/padding/aten"};
  b.checks_only_after = {"sum/chunking/aten"};
  b.cases_only_before = 6;
  b.cases_only_after = 7;
  b.before_has_digests = true;
  r.baseline_comparison = b;
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

// The baseline comparison reads back field for field: every list and count of every_field()'s
// differs from its default, so a field the reader dropped would show. Empty lists and a comparison
// from `report diff` (no baseline file, so no "baseline" key) survive too.
TEST(ReportReader, TheBaselineComparisonSurvivesTheRoundTrip) {
  const Report r = every_field();
  const Json written = Json(*r.baseline_comparison);
  EXPECT_EQ(written["baseline"], "h100.json.gz");
  EXPECT_EQ(written["same_platform"], false);
  EXPECT_EQ(Json(written.get<RunComparison>()).dump(), written.dump());
  const RunComparison back = report_from_json(report_to_json(r), "mem").baseline_comparison.value();
  EXPECT_EQ(back.baseline_file, "h100.json.gz");
  EXPECT_EQ(back.before_platform.gpu, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(back.verdict_changes.at(0).after, Expectation::violated);
  EXPECT_EQ(back.varied.at(0).outputs, (std::vector<std::string>{"*", "lse"}));
  EXPECT_EQ(back.checks_varying,
            std::vector<std::string>{"attention/gradient_determinism/aten.efficient"});
  EXPECT_TRUE(back.before_has_digests);
  EXPECT_EQ(back.cases_only_after, 7);

  const Json empty = Json(RunComparison{});
  EXPECT_FALSE(empty.contains("baseline"));
  EXPECT_EQ(empty["drift"], Json::array());
  EXPECT_EQ(empty["same_platform"], true);
  EXPECT_EQ(Json(empty.get<RunComparison>()).dump(), empty.dump());
  // Absent fields take their defaults.
  const RunComparison bare = Json::object().get<RunComparison>();
  EXPECT_EQ(Json(bare).dump(), empty.dump());

  Report none = every_field();
  none.baseline_comparison.reset();
  EXPECT_FALSE(report_to_json(none).contains("baseline"));
  EXPECT_FALSE(report_from_json(report_to_json(none), "mem").baseline_comparison);
}

// A wrong-typed field of the comparison is refused at its path under /baseline.
TEST(ReportReader, ABadBaselineComparisonNamesThePath) {
  const auto error_of = [](const std::string& pointer, const Json& value) {
    Json j = report_to_json(every_field());
    j[Json::json_pointer(pointer)] = value;
    try {
      report_from_json(j, "r.json");
    } catch (const ContractError& e) {
      return std::string(e.what());
    }
    return std::string("read it");
  };
  EXPECT_NE(error_of("/baseline/cases_compared", "5").find("r.json: /baseline/cases_compared: "),
            std::string::npos)
      << error_of("/baseline/cases_compared", "5");
  EXPECT_NE(error_of("/baseline/drift/0/outputs/0", 1).find("r.json: /baseline/drift/0/outputs/0"),
            std::string::npos)
      << error_of("/baseline/drift/0/outputs/0", 1);
  EXPECT_NE(error_of("/baseline/verdict_changes/0/after", "maybe")
                .find("r.json: /baseline/verdict_changes/0/after: \"maybe\" is not one of"),
            std::string::npos)
      << error_of("/baseline/verdict_changes/0/after", "maybe");
  EXPECT_NE(error_of("/baseline/before_platform/gpu", 1).find("r.json: /baseline/before_platform"),
            std::string::npos)
      << error_of("/baseline/before_platform/gpu", 1);
  EXPECT_EQ(error_of("/baseline/cases_compared", 5), "read it");  // negative control
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

// Every typed field of every case, written out here rather than by the report writer (doubles in
// hex, so every bit shows): two models that describe alike hold the same values.
std::string describe(const Report& r) {
  std::string out;
  for (const auto& c : r.cases) {
    out += fmt::format("{} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {:a}\n", c.id,
                       c.contract, c.check, to_string(c.kind), c.impl, c.device, c.params.dump(),
                       c.seed, to_string(c.verdict), to_string(c.expected),
                       to_string(c.expected_from), c.observed_on, c.reason, c.baseline, c.variant,
                       comparison_to_json(c.comparison).dump(), c.baseline_properties.size(),
                       c.variant_properties.size(), c.duration_ms);
    for (const auto* props : {&c.baseline_properties, &c.variant_properties}) {
      for (const auto& [name, value] : *props) out += fmt::format(" {}={}", name, value);
      out += "\n";
    }
    for (const auto* kernels : {&c.baseline_kernels, &c.variant_kernels}) {
      for (const auto& k : *kernels) {
        out += fmt::format(" {} {} {} {} {} {} {} {}\n", k.name, k.grid, k.block, k.registers,
                           k.static_smem, k.dynamic_smem, k.count, k.duration_ns);
      }
    }
    for (const auto& o : c.outputs) {
      const DiffStats& d = o.diff;
      out += fmt::format(" {} {} {} {} {} {} {} {} {:a} {} {:a} {:a} {} {} {}\n", o.name,
                         o.baseline_sha256, o.variant_sha256, to_string(d.mode), d.dtype, d.shape,
                         d.numel, d.mismatched, d.mismatch_fraction, d.within, d.max_abs_error,
                         d.max_rel_error, d.max_ulp ? std::to_string(*d.max_ulp) : "none",
                         d.nonfinite_mismatches, d.tolerance);
      for (const auto& [bucket, count] : d.ulp_histogram)
        out += fmt::format(" {}:{}", bucket, count);
      out += "\n";
      for (const auto& m : d.first_mismatches) {
        out +=
            fmt::format("  {} {:a} {:a} {} {} {}\n", m.index, m.baseline, m.variant,
                        m.baseline_bits, m.variant_bits, m.ulp ? std::to_string(*m.ulp) : "none");
      }
    }
  }
  return out;
}

// Every committed example report (2.x: every field written) rewritten in this layout reads back
// to the same typed values, case by case and field by field, and written again gives the same
// bytes. The rewrite is smaller (measured: the runs 0.76 and 0.61 of the 2.x text, the sweeps
// together 0.73; their dispatch maps, checks and contracts stay as they were).
TEST(ReportReader, CommittedReportsRewrittenReadTheSame) {
  std::vector<std::filesystem::path> files = {kExamples / "cpu.json.gz",
                                              kExamples / "h100.json.gz"};
  for (const auto& entry : std::filesystem::directory_iterator(kExamples / "sweeps")) {
    if (entry.path().string().size() > 8 &&
        entry.path().string().substr(entry.path().string().size() - 8) == ".json.gz") {
      files.push_back(entry.path());
    }
  }
  std::size_t sweeps = 0, before_sweeps = 0, after_sweeps = 0;
  for (const auto& path : files) {
    const std::string original = read_file_text(path.string(), "the report");
    const Report first = report_from_json(parse_json_document(original, path.string()), "a");
    const std::string text = render_report(report_to_json(first));
    const Report again = report_from_json(parse_json_document(text, "rewritten"), "b");
    EXPECT_EQ(describe(again), describe(first)) << path;
    EXPECT_EQ(render_report(report_to_json(again)), text) << path;
    if (first.dispatch) {
      ++sweeps;
      before_sweeps += original.size();
      after_sweeps += text.size();
    } else {
      EXPECT_LT(text.size(), original.size() * 85 / 100) << path;
    }
  }
  EXPECT_GE(sweeps, 10u);
  EXPECT_LT(after_sweeps, before_sweeps * 85 / 100);
}

// Control for the test above: a model that differs in one mismatch's bit describes differently.
TEST(ReportReader, TheDescriptionSeesOneBit) {
  Report r = every_field();
  const std::string before = describe(r);
  r.cases[0].outputs[0].diff.first_mismatches[0].baseline = std::nextafter(1.5, 2.0);
  EXPECT_NE(describe(r), before);
}

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

// Each committed baseline and recorded platform written back by to_json is the file it was read
// from, field for field (key order, the version aside, and the "varies" mark that also_seen
// implies).
TEST(BaselineFiles, EachFileWrittenBackIsTheSameFile) {
  int files = 0;
  for (const auto* dir : {"reports/baselines", "contracts/observed"}) {
    for (const auto& entry :
         std::filesystem::directory_iterator(std::filesystem::path(SAMEBITS_SOURCE_DIR) / dir)) {
      const std::string path = entry.path().string();
      Json file = Json::parse(read_file_text(path, "the baseline"));
      const Json written = load_baseline_file(path);
      file["schema_version"] = kBaselineSchemaVersion;
      if (file.contains("cases")) {
        for (auto& [id, record] : file["cases"].items()) {
          if (record.contains("also_seen") && !record.contains("varies")) {
            // varies is written before also_seen
            Json ordered{{"verdict", record["verdict"]},
                         {"outputs", record["outputs"]},
                         {"varies", true},
                         {"also_seen", record["also_seen"]}};
            record = ordered;
          }
        }
      }
      // Compared as sorted objects: the hand-kept observation files list checks in contract order.
      EXPECT_TRUE(nlohmann::json::parse(written.dump()) == nlohmann::json::parse(file.dump()))
          << path;
      ++files;
    }
  }
  EXPECT_GE(files, 4);
}

// A misspelt key in a baseline is refused at its path, naming the accepted keys; a check key's
// slashes are escaped in the path (RFC 6901).
TEST(BaselineFiles, AnUnknownKeyOrOutcomeIsRefusedAtItsPath) {
  const std::string head =
      R"({"schema": "samebits.baseline", "schema_version": "1.2.0", "name": "x", "platform": {},
          "recorded": {}, )";
  const auto error_of = [&](const std::string& rest) {
    try {
      parse_baseline(head + rest, "x.json");
    } catch (const ContractError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  std::string e = error_of(R"("checks": {}, "case": {}})");
  EXPECT_NE(e.find("x.json"), std::string::npos) << e;
  EXPECT_NE(e.find("/case"), std::string::npos) << e;
  EXPECT_NE(e.find("accepted: schema, schema_version"), std::string::npos) << e;
  e = error_of(R"("checks": {"sum/layout/aten": "held"}})");
  EXPECT_NE(e.find("/checks/sum~1layout~1aten"), std::string::npos) << e;
  EXPECT_NE(e.find("expected \"holds\", \"violated\" or \"varies\", got \"held\""),
            std::string::npos)
      << e;
  // "varies" is a check's outcome only: a case has a verdict.
  e = error_of(R"("checks": {}, "cases": {"a": {"verdict": "varies", "outputs": []}}})");
  EXPECT_NE(e.find("/cases/a/verdict"), std::string::npos) << e;
  EXPECT_NE(e.find("expected \"holds\" or \"violated\", got \"varies\""), std::string::npos) << e;
  e = error_of(R"("checks": {}, "cases": {"a": {"verdict": "holds", "outputs": [], "vary": 1}}})");
  EXPECT_NE(e.find("/cases/a/vary"), std::string::npos) << e;
  e = error_of(R"("checks": {}, "cases": {"a": {"verdict": "holds", "outputs": [["o", 1]]}}})");
  EXPECT_NE(e.find("/cases/a/outputs/0"), std::string::npos) << e;
  // Control: the same file with the right keys is read, a check seen both ways too.
  EXPECT_EQ(error_of(R"("checks": {"sum/layout/aten": "holds"}, "cases": {}})"), "accepted");
  EXPECT_EQ(error_of(R"("checks": {"sum/layout/aten": "varies"}, "cases": {}})"), "accepted");
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
    EXPECT_EQ(Json(*r.dispatch).dump(), j["dispatch"].dump()) << path;
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

}  // namespace report_reader_test_file
}  // namespace samebits
