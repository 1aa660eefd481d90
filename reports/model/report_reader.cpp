// Reading a report back into the typed model (the inverse of reports/model/json_report.h), so that
// render, diff, merge and baselines work on reports written earlier, on other machines.
#include "reports/model/report_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "common/errors.h"
#include "common/file_text.h"
#include "common/json_fields.h"
#include "reports/model/case_json.h"
#include "reports/model/case_tables.h"
#include "reports/model/dispatch_json.h"
#include "reports/model/report_json.h"

namespace samebits {
namespace {

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
  r.tool = top.as<ToolInfo>("tool");
  r.command = top.as<std::vector<std::string>>("command");
  r.settings = top.as<RunSettings>("settings");
  if (top.has("plan")) r.plan = top.as<RunPlan>("plan");
  r.environment = top.as<Environment>("environment");
  top.array("contracts");  // present in every layout, if empty
  r.contracts = top.list<ContractInfo>("contracts");
  r.summary = top.as<Summary>("summary");
  top.array("checks");
  r.checks = top.list<CheckResult>("checks");
  const CaseTables tables = CaseTables::from_json(j);
  const Json& cases = top.array("cases");
  r.cases.reserve(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    r.cases.push_back(
        within(fmt::format("/cases/{}", i), [&] { return case_of(cases[i], tables); }));
  }
  if (top.has("baseline")) r.baseline_comparison = top.as<RunComparison>("baseline");
  if (top.has("dispatch")) r.dispatch = top.as<DispatchMap>("dispatch");
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
  return in_file(source, "", [&] { return report_of(j); });
}

Json read_report_json(const std::string& path) {
  return parse_json_document(read_file_text(path, "the report"), path);
}

Report read_report_file(const std::string& path) {
  return report_from_json(read_report_json(path), path);
}

}  // namespace samebits
