// The report as ordered, versioned JSON (the layout reports/report.schema.json describes).
// Key order is fixed so two reports diff line by line.
#include "reports/json_report.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "reports/dispatch_text.h"

namespace samebits {
namespace {

// JSON has no NaN or infinity: those become strings so the file stays valid.
Json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

Json mismatch_to_json(const Mismatch& m) {
  Json j;
  j["index"] = m.index;
  j["baseline"] = number(m.baseline);
  j["variant"] = number(m.variant);
  j["baseline_bits"] = m.baseline_bits;
  j["variant_bits"] = m.variant_bits;
  j["ulp"] = m.ulp ? Json(*m.ulp) : Json(nullptr);
  return j;
}

// Kernel names are long (ATen's are whole template instantiations) and repeat across cases, so a
// run report lists each once under "kernel_names" and cases refer to it by index ("name_id").
class KernelNames {
 public:
  std::size_t id(const std::string& name) {
    const auto [it, added] = ids_.emplace(name, names_.size());
    if (added) names_.push_back(name);
    return it->second;
  }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::map<std::string, std::size_t> ids_;
  std::vector<std::string> names_;
};

Json launches_to_json(const std::vector<KernelLaunch>& kernels, KernelNames& names) {
  Json out = Json::array();
  for (const auto& k : kernels) {
    Json j = kernel_to_json(k);
    j.erase("name");
    Json with_id;
    with_id["name_id"] = names.id(k.name);
    for (auto& item : j.items()) with_id[item.key()] = item.value();
    out.push_back(std::move(with_id));
  }
  return out;
}

Json properties_to_json(const PointProperties& properties) {
  Json j = Json::object();
  for (const auto& [name, value] : properties) j[name] = value;
  return j;
}

Json case_to_json(const CaseResult& c, KernelNames& names) {
  Json j;
  j["id"] = c.id;
  j["contract"] = c.contract;
  j["check"] = c.check;
  j["kind"] = to_string(c.kind);
  j["impl"] = c.impl;
  j["device"] = c.device;
  j["params"] = c.params;
  j["seed"] = seed_to_json(c.seed);
  j["verdict"] = to_string(c.verdict);
  j["expected"] = to_string(c.expected);
  j["expected_from"] = to_string(c.expected_from);
  if (!c.observed_on.empty()) j["observed_on"] = c.observed_on;
  if (!c.reason.empty()) j["reason"] = c.reason;
  if (!c.baseline.empty()) j["baseline"] = c.baseline;
  if (!c.variant.empty()) j["variant"] = c.variant;
  j["comparison"] = comparison_to_json(c.comparison);
  Json outputs = Json::array();
  for (const auto& o : c.outputs) {
    Json out;
    out["name"] = o.name;
    out["baseline_sha256"] = o.baseline_sha256;
    out["variant_sha256"] = o.variant_sha256;
    out["diff"] = diff_to_json(o.diff);
    outputs.push_back(out);
  }
  j["outputs"] = outputs;
  if (!c.baseline_kernels.empty())
    j["baseline_kernels"] = launches_to_json(c.baseline_kernels, names);
  if (!c.variant_kernels.empty()) j["variant_kernels"] = launches_to_json(c.variant_kernels, names);
  if (!c.baseline_properties.empty())
    j["baseline_properties"] = properties_to_json(c.baseline_properties);
  if (!c.variant_properties.empty())
    j["variant_properties"] = properties_to_json(c.variant_properties);
  j["duration_ms"] = c.duration_ms;
  return j;
}

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

}  // namespace

Json kernel_to_json(const KernelLaunch& k) {
  Json j;
  j["name"] = k.name;
  j["grid"] = k.grid;
  j["block"] = k.block;
  j["registers"] = k.registers;
  j["static_smem"] = k.static_smem;
  j["dynamic_smem"] = k.dynamic_smem;
  j["count"] = k.count;
  j["duration_ns"] = k.duration_ns;
  return j;
}

Json kernels_to_json(const std::vector<KernelLaunch>& kernels) {
  Json out = Json::array();
  for (const auto& k : kernels) out.push_back(kernel_to_json(k));
  return out;
}

Json seed_to_json(std::uint64_t seed) {
  return std::to_string(seed);
}

Json comparison_to_json(const Comparison& c) {
  Json j;
  j["mode"] = to_string(c.mode);
  if (c.rtol) j["rtol"] = *c.rtol;
  if (c.atol) j["atol"] = *c.atol;
  if (c.mode == CompareMode::ulp) j["max_ulp"] = c.max_ulp;
  if (c.equal_nan) j["equal_nan"] = true;
  if (c.max_mismatches) j["max_mismatches"] = *c.max_mismatches;
  if (c.max_mismatch_fraction) j["max_mismatch_fraction"] = *c.max_mismatch_fraction;
  if (!c.outputs.empty()) j["outputs"] = c.outputs;
  return j;
}

Json diff_to_json(const DiffStats& d) {
  Json j;
  j["mode"] = to_string(d.mode);
  j["dtype"] = d.dtype;
  j["shape"] = d.shape;
  j["numel"] = d.numel;
  j["mismatched"] = d.mismatched;
  j["mismatch_fraction"] = d.mismatch_fraction;
  j["within"] = d.within;
  j["max_abs_error"] = number(d.max_abs_error);
  j["max_rel_error"] = number(d.max_rel_error);
  j["max_ulp"] = d.max_ulp ? Json(*d.max_ulp) : Json(nullptr);
  j["nonfinite_mismatches"] = d.nonfinite_mismatches;
  Json hist = Json::object();
  for (const auto& [bucket, count] : d.ulp_histogram) hist[bucket] = count;
  j["ulp_histogram"] = hist;
  Json first = Json::array();
  for (const auto& m : d.first_mismatches) first.push_back(mismatch_to_json(m));
  j["first_mismatches"] = first;
  if (!d.tolerance.empty()) j["tolerance"] = d.tolerance;
  return j;
}

namespace {

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
    for (const auto& k : c.kernels) jc["kernels"].push_back(kernel_to_json(k));
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
  KernelNames names;
  Json record;
  record["case"] = case_to_json(c, names);
  record["kernel_names"] = names.names();
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
  KernelNames names;
  Json cases = Json::array();
  for (const auto& c : r.cases) cases.push_back(case_to_json(c, names));
  j["kernel_names"] = names.names();
  j["cases"] = cases;
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
