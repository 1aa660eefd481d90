// The report-level records (checks, tallies, contracts, the summary) both ways: what each writes
// when, 2.x records without the newer fields read with their defaults, and errors naming the path.
#include "reports/model/report_json.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/errors.h"
#include "reports/model/json_report.h"
#include "reports/model/report_reader.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace report_json_test_file {}
using namespace report_json_test_file;
namespace report_json_test_file {

// A finding seen on the nearest platform, every count distinct, two tallies.
CheckResult finding() {
  CheckResult g;
  g.contract = "sum";
  g.check = "layout_invariance";
  g.kind = CheckKind::layout_invariance;
  g.impl = "aten";
  g.device = "cuda";
  g.expected = Expectation::violated;
  g.expected_from = ExpectationSource::observation;
  g.observed_on = "h100";
  g.nearest_observed = Expectation::holds;
  g.observed = Verdict::violated;
  g.outcome = Outcome::finding;
  g.planned = 9;
  g.cases = 8;
  g.held = 1;
  g.violated = 2;
  g.skipped = 3;
  g.errors = 4;
  g.crashed = 5;
  g.timed_out = 6;
  g.violations_by_axis = {{"N", "127", 1, 2}, {"layout", "padded:4", 2, 3}};
  return g;
}

TEST(ReportJson, ACheckSurvivesTheRoundTrip) {
  const Json j = finding();
  EXPECT_EQ(j.dump(),
            R"({"contract":"sum","check":"layout_invariance","kind":"layout_invariance",)"
            R"("impl":"aten","device":"cuda","expected":"violated","expected_from":"observation",)"
            R"("observed_on":"h100","nearest_observed":"holds","observed":"violated",)"
            R"("outcome":"finding","planned":9,"cases":8,"held":1,"violated":2,"skipped":3,)"
            R"("errors":4,"crashed":5,"timed_out":6,"violations_by_axis":[)"
            R"({"axis":"N","value":"127","violated":1,"total":2},)"
            R"({"axis":"layout","value":"padded:4","violated":2,"total":3}]})");
  const CheckResult back = j.get<CheckResult>();
  EXPECT_EQ(back.nearest_observed, Expectation::holds);
  EXPECT_EQ(back.planned, 9);
  EXPECT_EQ(back.timed_out, 6);
  EXPECT_EQ(back.violations_by_axis[1].value, "padded:4");
  EXPECT_EQ(back.violations_by_axis[1].total, 3);
  EXPECT_EQ(Json(back).dump(), j.dump());
}

// observed_on only when known, nearest_observed only for a finding that has one.
TEST(ReportJson, ACheckLeavesOutWhatItLacks) {
  CheckResult g = finding();
  g.observed_on.clear();
  g.outcome = Outcome::as_expected;  // nearest_observed set, but not a finding
  Json j = g;
  EXPECT_FALSE(j.contains("observed_on"));
  EXPECT_FALSE(j.contains("nearest_observed"));
  g = finding();
  g.nearest_observed = Expectation::unknown;
  j = g;
  EXPECT_FALSE(j.contains("nearest_observed"));
  EXPECT_EQ(j.get<CheckResult>().nearest_observed, Expectation::unknown);
  EXPECT_FALSE(j.contains("nearest_varying"));
}

// A finding whose nearest platform records the check as "varies" (3.3) says so, and reads back;
// the flag is left out when false, and for a check that is not a finding (the control).
TEST(ReportJson, AFindingWhoseNearestPlatformVariesSaysSo) {
  CheckResult g = finding();
  g.nearest_observed = Expectation::unknown;
  g.nearest_varying = true;
  const Json j = g;
  EXPECT_EQ(j.at("nearest_varying"), true);
  EXPECT_FALSE(j.contains("nearest_observed"));
  const CheckResult back = j.get<CheckResult>();
  EXPECT_TRUE(back.nearest_varying);
  EXPECT_EQ(back.nearest_observed, Expectation::unknown);
  EXPECT_EQ(Json(back).dump(), j.dump());
  g.outcome = Outcome::as_expected;
  EXPECT_FALSE(Json(g).contains("nearest_varying"));
  EXPECT_FALSE(Json(finding()).get<CheckResult>().nearest_varying);  // (absent: false)
}

// 3.2: a check its covering platform records as "varies" says so; any other leaves the key out,
// and a check without it (3.1 and before) reads as not varying.
TEST(ReportJson, ACheckRecordedAsVaryingSaysSo) {
  CheckResult g = finding();
  g.expected = Expectation::unknown;
  g.outcome = Outcome::informational;
  g.recorded_varying = true;
  const Json j = g;
  EXPECT_EQ(j.at("recorded_varying"), true);
  EXPECT_TRUE(j.get<CheckResult>().recorded_varying);
  g.recorded_varying = false;
  const Json plain = g;
  EXPECT_FALSE(plain.contains("recorded_varying"));
  EXPECT_FALSE(plain.get<CheckResult>().recorded_varying);
  Json wrong = j;
  wrong["recorded_varying"] = "yes";
  EXPECT_THROW(wrong.get<CheckResult>(), FieldError);
}

// A 2.0 check: no expected_from, planned, crashed nor nearest_observed.
TEST(ReportJson, A2xCheckReadsWithTheOldMeanings) {
  Json j = finding();
  for (const char* key : {"expected_from", "observed_on", "nearest_observed", "planned", "crashed"})
    j.erase(key);
  const CheckResult g = j.get<CheckResult>();
  EXPECT_EQ(g.expected_from, ExpectationSource::promise);
  EXPECT_EQ(g.planned, g.cases);
  EXPECT_EQ(g.planned, 8);
  EXPECT_EQ(g.crashed, 0);
  EXPECT_EQ(g.nearest_observed, Expectation::unknown);
  EXPECT_EQ(g.timed_out, 6);
}

TEST(ReportJson, TheSummaryAndContractsSurviveTheRoundTrip) {
  Summary s;
  s.cases = 1, s.held = 2, s.violated = 3, s.skipped = 4, s.errors = 5, s.crashed = 6;
  s.timed_out = 7, s.checks = 8, s.as_expected = 9, s.unexpected = 10, s.informational = 11;
  s.findings = 12, s.not_observed = 13, s.exit_code = 1, s.duration_s = 0.25;
  const Json j = s;
  EXPECT_EQ(j.dump(),
            R"({"cases":1,"held":2,"violated":3,"skipped":4,"errors":5,"crashed":6,)"
            R"("timed_out":7,"checks":8,"as_expected":9,"unexpected":10,"informational":11,)"
            R"("findings":12,"not_observed":13,"exit_code":1,"duration_s":0.25})");
  EXPECT_EQ(Json(j.get<Summary>()).dump(), j.dump());
  Json older = j;  // 2.2: no crashed
  older.erase("crashed");
  EXPECT_EQ(older.get<Summary>().crashed, 0);
  EXPECT_EQ(older.get<Summary>().timed_out, 7);

  const ContractInfo c{"sum", "contracts/sum.json", "ab", "sum", "x.sum(0)", "{}"};
  const Json jc = c;
  EXPECT_EQ(jc.dump(), R"({"name":"sum","source":"contracts/sum.json","sha256":"ab","op":"sum",)"
                       R"x("description":"x.sum(0)","text":"{}"})x");
  EXPECT_EQ(Json(jc.get<ContractInfo>()).dump(), jc.dump());
}

// A report with the records above and an empty dispatch map: a bad value names its file and JSON
// path (the map's own paths: dispatch_json_test.cpp).
Json report_with(const CheckResult& g) {
  Report r;
  r.contracts = {{"sum", "contracts/sum.json", "ab", "sum", "x.sum(0)", "{}"}};
  r.checks = {g};
  r.dispatch = DispatchMap{};
  return report_to_json(r);
}

std::string error_of(const Json& report) {
  try {
    report_from_json(report, "r.json");
  } catch (const ContractError& e) {
    return e.what();
  }
  return "(read without an error)";
}

TEST(ReportJson, ABadValueNamesItsPath) {
  Json j = report_with(finding());
  EXPECT_EQ(report_from_json(j, "r.json").checks[0].outcome, Outcome::finding);
  j["checks"][0]["outcome"] = "maybe";
  EXPECT_EQ(error_of(j).rfind("r.json: /checks/0/outcome: \"maybe\" is not one of: as_expected, "
                              "unexpected_violation, ",
                              0),
            0u)
      << error_of(j);
  j = report_with(finding());
  j["checks"][0]["expected_from"] = "hearsay";
  EXPECT_EQ(error_of(j),
            "r.json: /checks/0/expected_from: \"hearsay\" is not one of: promise, "
            "observation, none");
  j = report_with(finding());
  j["checks"][0]["violations_by_axis"][1]["total"] = "three";
  EXPECT_EQ(error_of(j),
            "r.json: /checks/0/violations_by_axis/1/total: expected a number, got "
            "string");
  j = report_with(finding());
  j["summary"]["duration_s"] = true;
  EXPECT_EQ(error_of(j), "r.json: /summary/duration_s: expected a number, got boolean");
  j = report_with(finding());
  j["contracts"][0]["sha256"] = 7;
  EXPECT_EQ(error_of(j), "r.json: /contracts/0/sha256: expected a string, got number");
  j = report_with(finding());
  j["dispatch"]["results"] = "none";
  EXPECT_EQ(error_of(j), "r.json: /dispatch/results: expected an array, got string");
  j = report_with(finding());
  j.erase("checks");
  EXPECT_EQ(error_of(j), "r.json: /: missing field \"checks\"");
}

}  // namespace report_json_test_file
}  // namespace samebits
