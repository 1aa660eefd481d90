// The report as ordered, versioned JSON (the layout reports/report.schema.json describes).
// Key order is fixed so two reports diff line by line.
#include "reports/json_report.h"

#include <string>
#include <vector>

#include "reports/case_tables.h"
#include "reports/dispatch_text.h"

namespace samebits {
namespace {

Json check_to_json(const CheckResult& g) {
  Json j;
  j["contract"] = g.contract;
  j["check"] = g.check;
  j["kind"] = to_string(g.kind);
  j["impl"] = g.impl;
  j["device"] = g.device;
  j["expected"] = to_string(g.expected);
  j["expected_from"] = to_string(g.expected_from);
  if (!g.observed_on.empty()) j["observed_on"] = g.observed_on;
  if (g.outcome == Outcome::finding && g.nearest_observed != Expectation::unknown) {
    j["nearest_observed"] = to_string(g.nearest_observed);
  }
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
  Json tallies = Json::array();
  for (const auto& t : g.violations_by_axis) {
    tallies.push_back(
        Json{{"axis", t.axis}, {"value", t.value}, {"violated", t.violated}, {"total", t.total}});
  }
  j["violations_by_axis"] = tallies;
  return j;
}

Json rule_to_json(const Rule& rule) {
  Json j;
  j["text"] = rule.text;
  j["exact"] = rule.exact;
  j["matched"] = rule.matched;
  j["considered"] = rule.considered;
  if (!rule.points.empty()) j["points"] = rule.points;
  return j;
}

}  // namespace

Json dispatch_to_json(const DispatchMap& map) {
  Json j;
  j["op"] = map.op;
  j["impl"] = map.impl;
  j["axis"] = map.axis;
  j["variants"] = map.variants;
  j["kernels_captured"] = map.kernels_captured;
  j["signature_with_grid"] = map.signature_with_grid;
  j["points"] = map.points;
  Json classes = Json::array();
  for (const auto& c : map.classes) {
    Json jc;
    jc["id"] = c.id;
    jc["label"] = c.label;
    jc["signature"] = c.signature;
    jc["observations"] = c.observations;
    jc["kernels"] = Json::array();
    for (const auto& k : c.kernels) jc["kernels"].push_back(k);
    classes.push_back(std::move(jc));
  }
  j["classes"] = std::move(classes);
  Json dispatch = Json::array();
  for (const auto& d : map.dispatch) {
    Json jd;
    jd["variant"] = d.variant;
    jd["class_of_point"] = d.class_of_point;
    jd["rules"] = Json::array();
    for (const auto& [id, rule] : d.class_rules) {
      jd["rules"].push_back({{"class", id}, {"rule", rule_to_json(rule)}});
    }
    dispatch.push_back(std::move(jd));
  }
  j["dispatch"] = std::move(dispatch);
  Json results = Json::array();
  for (const auto& r : map.results) {
    Json jr;
    jr["variant"] = r.variant;
    jr["reference"] = r.reference;
    jr["points"] = r.points;
    jr["differing_points"] = r.differing_points;
    jr["where_bits_differ"] = rule_to_json(r.where_bits_differ);
    if (map.kernels_captured) {
      jr["kernel_differing_points"] = r.kernel_differing_points;
      jr["same_kernel_differences"] = r.same_kernel_differences;
      jr["where_kernels_differ"] = rule_to_json(r.where_kernels_differ);
    }
    jr["relation"] = r.relation;
    results.push_back(std::move(jr));
  }
  j["results"] = std::move(results);
  Json result_classes = Json::array();
  for (const auto& rc : map.result_classes) {
    Json jc;
    jc["id"] = rc.id;
    jc["label"] = rc.label;
    jc["groups"] = rc.groups;
    jc["points"] = rc.points;
    if (map.result_classes.size() > 1) jc["rule"] = rule_to_json(rc.rule);
    result_classes.push_back(std::move(jc));
  }
  j["result_classes"] = std::move(result_classes);
  j["result_class_of_point"] = map.result_class_of_point;
  j["findings"] = dispatch_findings(map);
  return j;
}

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
  j["environment"] = r.environment;
  Json contracts = Json::array();
  for (const auto& c : r.contracts) {
    contracts.push_back(Json{{"name", c.name},
                             {"source", c.source},
                             {"sha256", c.sha256},
                             {"op", c.op},
                             {"description", c.description},
                             {"text", c.text}});
  }
  j["contracts"] = contracts;
  const Summary& s = r.summary;
  j["summary"] = Json{{"cases", s.cases},
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
  Json checks = Json::array();
  for (const auto& g : r.checks) checks.push_back(check_to_json(g));
  j["checks"] = checks;
  CaseTables tables;
  Json cases = Json::array();
  for (const auto& c : r.cases) {
    Json record = c;
    tables.pack(record);
    cases.push_back(std::move(record));
  }
  tables.add_to(j);
  j["cases"] = std::move(cases);
  if (!r.baseline_comparison.is_null()) j["baseline"] = r.baseline_comparison;
  if (r.dispatch) j["dispatch"] = dispatch_to_json(*r.dispatch);
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
