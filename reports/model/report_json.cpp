// The report-level records (checks, their tallies, contracts, the summary) both ways (nlohmann's
// to_json/from_json, found by ADL): one definition per record, so writer and reader cannot drift.
#include "reports/model/report_json.h"

#include <string>
#include <vector>

#include "common/json_fields.h"
#include "contracts/check_kind.h"

namespace samebits {

void to_json(Json& j, const CheckResult& g) {
  j = Json::object();
  j["contract"] = g.contract;
  j["check"] = g.check;
  j["kind"] = to_string(g.kind);
  j["impl"] = g.impl;
  j["device"] = g.device;
  j["expected"] = to_string(g.expected);
  j["expected_from"] = to_string(g.expected_from);
  if (!g.observed_on.empty()) j["observed_on"] = g.observed_on;
  if (g.recorded_varying) j["recorded_varying"] = true;
  if (g.outcome == Outcome::finding && g.nearest_observed != Expectation::unknown) {
    j["nearest_observed"] = to_string(g.nearest_observed);
  }
  if (g.outcome == Outcome::finding && g.nearest_varying) j["nearest_varying"] = true;
  j["observed"] = to_string(g.observed);
  j["outcome"] = to_string(g.outcome);
  j["planned"] = g.planned;
  j["cases"] = g.cases;
  j["held"] = g.held;
  j["violated"] = g.violated;
  j["skipped"] = g.skipped;
  j["errors"] = g.errors;
  j["crashed"] = g.crashed;
  j["timed_out"] = g.timed_out;
  j["violations_by_axis"] = g.violations_by_axis;
}

void from_json(const Json& j, CheckResult& g) {
  const Fields f(j);
  g = CheckResult{};
  g.contract = f.text("contract");
  g.check = f.text("check");
  g.kind = f.enumerated<CheckKind>("kind", check_kind_names());
  g.impl = f.text("impl");
  g.device = f.text("device");
  g.expected = f.enumerated<Expectation>("expected", expectation_names());
  g.expected_from = f.enumerated<ExpectationSource>("expected_from", expectation_source_names(),
                                                    ExpectationSource::promise);
  g.observed_on = f.text("observed_on");
  g.recorded_varying = f.flag("recorded_varying");  // 3.2; absent: false
  if (f.has("nearest_observed")) {
    g.nearest_observed = f.enumerated<Expectation>("nearest_observed", expectation_names());
  }
  g.nearest_varying = f.flag("nearest_varying");  // 3.3; absent: false
  g.observed = f.enumerated<Verdict>("observed", verdict_names());
  g.outcome = f.enumerated<Outcome>("outcome", outcome_names());
  g.cases = f.number<std::int64_t>("cases");
  g.planned = f.number<std::int64_t>("planned", g.cases);
  g.held = f.number<std::int64_t>("held");
  g.violated = f.number<std::int64_t>("violated");
  g.skipped = f.number<std::int64_t>("skipped");
  g.errors = f.number<std::int64_t>("errors");
  g.crashed = f.number<std::int64_t>("crashed");  // 2.3; absent before: 0
  g.timed_out = f.number<std::int64_t>("timed_out");
  f.array("violations_by_axis");  // present in every layout, if empty
  g.violations_by_axis = f.list<AxisTally>("violations_by_axis");
}

void to_json(Json& j, const AxisTally& t) {
  j = Json{{"axis", t.axis}, {"value", t.value}, {"violated", t.violated}, {"total", t.total}};
}

void from_json(const Json& j, AxisTally& t) {
  const Fields f(j);
  t = AxisTally{f.text("axis"), f.text("value"), f.number<std::int64_t>("violated"),
                f.number<std::int64_t>("total")};
}

void to_json(Json& j, const ContractInfo& c) {
  j = Json{{"name", c.name}, {"source", c.source},           {"sha256", c.sha256},
           {"op", c.op},     {"description", c.description}, {"text", c.text}};
}

void from_json(const Json& j, ContractInfo& c) {
  const Fields f(j);
  c = ContractInfo{f.text("name"), f.text("source"),      f.text("sha256"),
                   f.text("op"),   f.text("description"), f.text("text")};
}

void to_json(Json& j, const Summary& s) {
  j = Json{{"cases", s.cases},
           {"held", s.held},
           {"violated", s.violated},
           {"skipped", s.skipped},
           {"errors", s.errors},
           {"crashed", s.crashed},
           {"timed_out", s.timed_out},
           {"checks", s.checks},
           {"as_expected", s.as_expected},
           {"unexpected", s.unexpected},
           {"informational", s.informational},
           {"findings", s.findings},
           {"not_observed", s.not_observed},
           {"exit_code", s.exit_code},
           {"duration_s", s.duration_s}};
}

void from_json(const Json& j, Summary& s) {
  const Fields f(j);
  s = Summary{};
  s.cases = f.number<std::int64_t>("cases");
  s.held = f.number<std::int64_t>("held");
  s.violated = f.number<std::int64_t>("violated");
  s.skipped = f.number<std::int64_t>("skipped");
  s.errors = f.number<std::int64_t>("errors");
  s.crashed = f.number<std::int64_t>("crashed");  // 2.3; absent before: 0
  s.timed_out = f.number<std::int64_t>("timed_out");
  s.checks = f.number<std::int64_t>("checks");
  s.as_expected = f.number<std::int64_t>("as_expected");
  s.unexpected = f.number<std::int64_t>("unexpected");
  s.informational = f.number<std::int64_t>("informational");
  s.findings = f.number<std::int64_t>("findings");
  s.not_observed = f.number<std::int64_t>("not_observed");
  s.exit_code = f.number<int>("exit_code");
  s.duration_s = f.number<double>("duration_s");
}

}  // namespace samebits
