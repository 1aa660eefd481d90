// The report as ordered, versioned JSON (the layout reports/report.schema.json describes).
// Key order is fixed so two reports diff line by line.
#include "reports/model/json_report.h"

#include <string>
#include <vector>

#include "reports/model/case_tables.h"
#include "reports/model/dispatch_json.h"
#include "reports/model/report_json.h"

namespace samebits {
Json case_record_to_json(const CaseResult& c) {
  CaseTables tables;
  Json record;
  record["case"] = c;
  tables.pack(record["case"]);
  tables.add_to(record);
  return record;
}

Json report_to_json(const Report& r) {
  Json j;
  j["schema"] = "samebits.report";
  j["schema_version"] = kReportSchemaVersion;
  j["created"] = r.created;
  j["tool"] = r.tool;
  j["command"] = r.command;
  j["settings"] = r.settings;
  if (r.plan) j["plan"] = *r.plan;
  j["environment"] = r.environment;
  j["contracts"] = r.contracts;
  j["summary"] = r.summary;
  j["checks"] = r.checks;
  CaseTables tables;
  Json cases = Json::array();
  for (const auto& c : r.cases) {
    Json record = c;
    tables.pack(record);
    cases.push_back(std::move(record));
  }
  tables.add_to(j);
  j["cases"] = std::move(cases);
  if (r.baseline_comparison) j["baseline"] = *r.baseline_comparison;
  if (r.dispatch) j["dispatch"] = *r.dispatch;
  return j;
}

namespace {

std::string dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// v.dump(2) with every line after the first indented by `pad` more spaces.
std::string indented(const Json& v, const std::string& pad) {
  const std::string text = v.dump(2, ' ', false, Json::error_handler_t::replace);
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n') out += pad;
  }
  return out;
}

}  // namespace

std::string render_report(const Json& report) {
  std::string out = "{\n";
  bool first = true;
  for (const auto& item : report.items()) {
    if (!first) out += ",\n";
    first = false;
    out += "  " + dump(Json(item.key())) + ": ";
    const Json& v = item.value();
    const bool one_per_line =
        v.is_array() && !v.empty() && (v.front().is_object() || v.size() > 16);
    if (one_per_line) {
      out += "[\n";
      for (std::size_t i = 0; i < v.size(); ++i) {
        out += "    " + dump(v[i]) + (i + 1 < v.size() ? ",\n" : "\n");
      }
      out += "  ]";
    } else if (item.key() == "dispatch" && v.is_object()) {
      out += "{\n";
      bool first_key = true;
      for (const auto& part : v.items()) {
        if (!first_key) out += ",\n";
        first_key = false;
        out += "    " + dump(Json(part.key())) + ": " + dump(part.value());
      }
      out += "\n  }";
    } else {
      out += indented(v, "  ");
    }
  }
  return out + "\n}\n";
}

}  // namespace samebits
