// Reading a report back into the typed model (the inverse of reports/json_report.h), so that
// render, diff, merge and baselines work on reports written earlier, on other machines.
#include "reports/report_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "contracts/check_kind.h"
#include "contracts/contract_error.h"
#include "contracts/file_text.h"
#include "reports/case_json.h"
#include "reports/case_tables.h"
#include "reports/dispatch_reader.h"
#include "reports/json_fields.h"

namespace samebits {
namespace {

const std::vector<std::string>& source_names() {
  static const std::vector<std::string> names = {"promise", "observation", "none"};
  return names;
}

CheckResult check_of(const Fields& n) {
  CheckResult g;
  g.contract = n.text("contract");
  g.check = n.text("check");
  g.kind = n.enumerated<CheckKind>("kind", check_kind_names());
  g.impl = n.text("impl");
  g.device = n.text("device");
  g.expected = n.enumerated<Expectation>("expected", expectation_names());
  g.expected_from =
      n.enumerated<ExpectationSource>("expected_from", source_names(), ExpectationSource::promise);
  g.observed_on = n.text("observed_on");
  if (n.has("nearest_observed")) {
    g.nearest_observed = n.enumerated<Expectation>("nearest_observed", expectation_names());
  }
  g.observed = n.enumerated<Verdict>("observed", verdict_names());
  g.outcome = n.enumerated<Outcome>("outcome", outcome_names());
  g.cases = n.number<std::int64_t>("cases");
  g.planned = n.number<std::int64_t>("planned", g.cases);
  g.held = n.number<std::int64_t>("held");
  g.violated = n.number<std::int64_t>("violated");
  g.skipped = n.number<std::int64_t>("skipped");
  g.errors = n.number<std::int64_t>("errors");
  g.crashed = n.number<std::int64_t>("crashed");  // 2.3; absent before: 0
  g.timed_out = n.number<std::int64_t>("timed_out");
  const Json& tallies = n.array("violations_by_axis");
  for (std::size_t i = 0; i < tallies.size(); ++i) {
    g.violations_by_axis.push_back(within(fmt::format("/violations_by_axis/{}", i), [&] {
      const Fields t(tallies[i]);
      return AxisTally{t.text("axis"), t.text("value"), t.number<std::int64_t>("violated"),
                       t.number<std::int64_t>("total")};
    }));
  }
  return g;
}

Summary summary_of(const Fields& n) {
  Summary s;
  s.cases = n.number<std::int64_t>("cases");
  s.held = n.number<std::int64_t>("held");
  s.violated = n.number<std::int64_t>("violated");
  s.skipped = n.number<std::int64_t>("skipped");
  s.errors = n.number<std::int64_t>("errors");
  s.crashed = n.number<std::int64_t>("crashed");  // 2.3; absent before: 0
  s.timed_out = n.number<std::int64_t>("timed_out");
  s.checks = n.number<std::int64_t>("checks");
  s.as_expected = n.number<std::int64_t>("as_expected");
  s.unexpected = n.number<std::int64_t>("unexpected");
  s.informational = n.number<std::int64_t>("informational");
  s.findings = n.number<std::int64_t>("findings");
  s.not_observed = n.number<std::int64_t>("not_observed");
  s.exit_code = n.number<int>("exit_code");
  s.duration_s = n.number<double>("duration_s");
  return s;
}

// One case record, its references resolved against the tables.
CaseResult case_of(const Json& record, const CaseTables& tables) {
  Json whole = record;
  tables.unpack(whole);
  return whole.get<CaseResult>();
}

Report report_of(const Json& j) {
  const Fields top(j);
  if (top.text("schema") != "samebits.report") {
    throw FieldError("/schema", "expected \"samebits.report\": this file is not a samebits report");
  }
  const std::string version = top.text("schema_version");
  if (version.rfind("2.", 0) != 0 && version.rfind("3.", 0) != 0) {
    throw FieldError("/schema_version",
                     fmt::format("version {} is not one this samebits reads (2.x, 3.x); rerun the "
                                 "contracts with this samebits to get a current report",
                                 version));
  }
  Report r;
  r.created = top.text("created");
  r.tool = top.required("tool");
  r.command = top.required("command");
  r.settings = top.required("settings");
  r.environment = top.required("environment");
  const Json& contracts = top.array("contracts");
  for (std::size_t i = 0; i < contracts.size(); ++i) {
    r.contracts.push_back(within(fmt::format("/contracts/{}", i), [&] {
      const Fields c(contracts[i]);
      return ContractInfo{c.text("name"), c.text("source"),      c.text("sha256"),
                          c.text("op"),   c.text("description"), c.text("text")};
    }));
  }
  r.summary = within("/summary", [&] { return summary_of(Fields(top.required("summary"))); });
  const Json& checks = top.array("checks");
  for (std::size_t i = 0; i < checks.size(); ++i) {
    r.checks.push_back(
        within(fmt::format("/checks/{}", i), [&] { return check_of(Fields(checks[i])); }));
  }
  const CaseTables tables = CaseTables::from_json(j);
  const Json& cases = top.array("cases");
  r.cases.reserve(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    r.cases.push_back(
        within(fmt::format("/cases/{}", i), [&] { return case_of(cases[i], tables); }));
  }
  if (top.has("baseline")) {
    r.baseline_comparison = within("/baseline", [&] { return Fields(j.at("baseline")).json(); });
  }
  return r;
}

// read() with a FieldError (or nlohmann's own) as a ContractError naming the file and the path.
template <typename F>
auto in_file(const std::string& source, const std::string& path, F&& read) -> decltype(read()) {
  try {
    return within("", read);
  } catch (const FieldError& e) {
    const std::string where = path + e.pointer();
    throw_contract_error(source, where.empty() ? "/" : where, e.what());
  }
}

}  // namespace

CaseResult case_record_from_json(const Json& record, const std::string& source,
                                 const std::string& path) {
  return in_file(source, path, [&] {
    const Fields n(record);
    const CaseTables tables = CaseTables::from_json(record);
    return within("/case", [&] { return case_of(n.required("case"), tables); });
  });
}

Report report_from_json(const Json& j, const std::string& source) {
  Report r = in_file(source, "", [&] { return report_of(j); });
  if (j.contains("dispatch") && !j.at("dispatch").is_null()) {
    r.dispatch = dispatch_from_json(j.at("dispatch"), source);
  }
  return r;
}

Json read_report_json(const std::string& path) {
  return parse_json_document(read_file_text(path, "the report"), path);
}

Report read_report_file(const std::string& path) {
  return report_from_json(read_report_json(path), path);
}

}  // namespace samebits
