// Reading a report back into the typed model (the inverse of reports/json_report.h), so that
// render, diff, merge and baselines work on reports written earlier, on other machines.
#include "reports/report_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "contracts/check_kind.h"
#include "contracts/contract_error.h"
#include "contracts/file_text.h"
#include "reports/dispatch_reader.h"

namespace samebits {
namespace {

// One JSON object being read, with its path for messages. Fields absent from older minor versions
// fall back to defaults; present fields of the wrong type are errors.
class Node {
 public:
  Node(const Json& j, std::string path, const std::string& source)
      : j_(j), path_(std::move(path)), source_(source) {
    if (!j_.is_object()) fail(path_, fmt::format("expected an object, got {}", j_.type_name()));
  }
  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw_contract_error(source_, path.empty() ? "/" : path, what);
  }
  std::string at(const std::string& key) const { return path_ + "/" + key; }
  bool has(const std::string& key) const { return j_.contains(key) && !j_.at(key).is_null(); }
  const Json& required(const std::string& key) const {
    if (!j_.contains(key)) fail(path_, fmt::format("missing field \"{}\"", key));
    return j_.at(key);
  }
  Node object(const std::string& key) const { return Node(required(key), at(key), source_); }
  const Json& array(const std::string& key) const {
    const Json& v = required(key);
    if (!v.is_array()) fail(at(key), fmt::format("expected an array, got {}", v.type_name()));
    return v;
  }
  std::string text(const std::string& key, const std::string& fallback = "") const {
    if (!has(key)) return fallback;
    const Json& v = j_.at(key);
    if (!v.is_string()) fail(at(key), fmt::format("expected a string, got {}", v.type_name()));
    return v.get<std::string>();
  }
  template <typename T>
  T number(const std::string& key, T fallback = T{}) const {
    if (!has(key)) return fallback;
    const Json& v = j_.at(key);
    // Non-finite doubles are written as "nan", "inf", "-inf".
    if constexpr (std::is_floating_point_v<T>) {
      if (v == "nan") return std::numeric_limits<T>::quiet_NaN();
      if (v == "inf") return std::numeric_limits<T>::infinity();
      if (v == "-inf") return -std::numeric_limits<T>::infinity();
    }
    if (!v.is_number()) fail(at(key), fmt::format("expected a number, got {}", v.type_name()));
    return v.get<T>();
  }
  bool flag(const std::string& key, bool fallback = false) const {
    if (!has(key)) return fallback;
    if (!j_.at(key).is_boolean()) fail(at(key), "expected true or false");
    return j_.at(key).get<bool>();
  }
  template <typename Enum>
  Enum enumerated(const std::string& key, const std::vector<std::string>& names,
                  std::optional<Enum> fallback = std::nullopt) const {
    if (!has(key) && fallback) return *fallback;
    const std::string value = text(key);
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == value) return static_cast<Enum>(i);
    }
    fail(at(key), fmt::format("\"{}\" is not one of: {}", value, fmt::join(names, ", ")));
  }
  const Json& json() const { return j_; }
  const std::string& source() const { return source_; }

 private:
  const Json& j_;
  std::string path_;
  const std::string& source_;
};

const std::vector<std::string>& source_names() {
  static const std::vector<std::string> names = {"promise", "observation", "none"};
  return names;
}

Comparison comparison_of(const Node& n) {
  Comparison c;
  c.mode = n.enumerated<CompareMode>("mode", compare_mode_names());
  if (n.has("rtol")) c.rtol = n.number<double>("rtol");
  if (n.has("atol")) c.atol = n.number<double>("atol");
  c.max_ulp = n.number<std::int64_t>("max_ulp");
  c.equal_nan = n.flag("equal_nan");
  if (n.has("max_mismatches")) c.max_mismatches = n.number<std::int64_t>("max_mismatches");
  if (n.has("max_mismatch_fraction")) {
    c.max_mismatch_fraction = n.number<double>("max_mismatch_fraction");
  }
  if (n.has("outputs")) c.outputs = n.array("outputs").get<std::vector<std::string>>();
  return c;
}

DiffStats diff_of(const Node& n) {
  DiffStats d;
  d.mode = n.enumerated<CompareMode>("mode", compare_mode_names());
  d.dtype = n.text("dtype");
  d.shape = n.array("shape").get<std::vector<std::int64_t>>();
  d.numel = n.number<std::int64_t>("numel");
  d.mismatched = n.number<std::int64_t>("mismatched");
  d.mismatch_fraction = n.number<double>("mismatch_fraction");
  d.within = n.flag("within", true);
  d.max_abs_error = n.number<double>("max_abs_error");
  d.max_rel_error = n.number<double>("max_rel_error");
  if (n.has("max_ulp")) d.max_ulp = n.number<std::uint64_t>("max_ulp");
  d.nonfinite_mismatches = n.number<std::int64_t>("nonfinite_mismatches");
  if (n.has("ulp_histogram")) {
    for (const auto& item : n.object("ulp_histogram").json().items()) {
      d.ulp_histogram.emplace_back(item.key(), item.value().get<std::int64_t>());
    }
  }
  const Json& first = n.array("first_mismatches");
  for (std::size_t i = 0; i < first.size(); ++i) {
    const Node m(first[i], fmt::format("{}/{}", n.at("first_mismatches"), i), n.source());
    Mismatch mm;
    mm.index = m.array("index").get<std::vector<std::int64_t>>();
    mm.baseline = m.number<double>("baseline");
    mm.variant = m.number<double>("variant");
    mm.baseline_bits = m.text("baseline_bits");
    mm.variant_bits = m.text("variant_bits");
    if (m.has("ulp")) mm.ulp = m.number<std::uint64_t>("ulp");
    d.first_mismatches.push_back(std::move(mm));
  }
  d.tolerance = n.text("tolerance");
  return d;
}

KernelLaunch kernel_of(const Node& n, const std::vector<std::string>& names) {
  KernelLaunch k;
  if (n.has("name_id")) {
    const auto id = n.number<std::size_t>("name_id");
    if (id >= names.size()) n.fail(n.at("name_id"), fmt::format("no kernel name {}", id));
    k.name = names[id];
  } else {
    k.name = n.text("name");
  }
  k.grid = n.required("grid").get<std::array<std::uint32_t, 3>>();
  k.block = n.required("block").get<std::array<std::uint32_t, 3>>();
  k.registers = n.number<std::uint32_t>("registers");
  k.static_smem = n.number<std::uint32_t>("static_smem");
  k.dynamic_smem = n.number<std::uint32_t>("dynamic_smem");
  k.count = n.number<std::uint64_t>("count");
  k.duration_ns = n.number<std::uint64_t>("duration_ns");
  return k;
}

std::vector<KernelLaunch> kernels_of(const Node& n, const std::string& key,
                                     const std::vector<std::string>& names) {
  std::vector<KernelLaunch> out;
  if (!n.has(key)) return out;
  const Json& a = n.array(key);
  for (std::size_t i = 0; i < a.size(); ++i) {
    out.push_back(kernel_of(Node(a[i], fmt::format("{}/{}", n.at(key), i), n.source()), names));
  }
  return out;
}

PointProperties properties_of(const Node& n, const std::string& key) {
  PointProperties out;
  if (!n.has(key)) return out;
  for (const auto& item : n.object(key).json().items()) {
    out.emplace_back(item.key(), item.value().get<std::int64_t>());
  }
  return out;
}

std::uint64_t seed_of(const Node& n) {
  const Json& v = n.required("seed");
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();  // schema 1.x wrote numbers
  const std::string s = n.text("seed");
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) {
    n.fail(n.at("seed"), fmt::format("expected a decimal seed, got \"{}\"", s));
  }
  return std::stoull(s);
}

CaseResult case_of(const Node& n, const std::vector<std::string>& names) {
  CaseResult c;
  c.id = n.text("id");
  c.contract = n.text("contract");
  c.check = n.text("check");
  c.kind = n.enumerated<CheckKind>("kind", check_kind_names());
  c.impl = n.text("impl");
  c.device = n.text("device");
  c.params = n.required("params");
  c.seed = seed_of(n);
  c.verdict = n.enumerated<Verdict>("verdict", verdict_names());
  c.expected = n.enumerated<Expectation>("expected", expectation_names());
  c.expected_from =
      n.enumerated<ExpectationSource>("expected_from", source_names(), ExpectationSource::promise);
  c.observed_on = n.text("observed_on");
  c.reason = n.text("reason");
  c.baseline = n.text("baseline");
  c.variant = n.text("variant");
  c.comparison = comparison_of(n.object("comparison"));
  const Json& outputs = n.array("outputs");
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Node o(outputs[i], fmt::format("{}/{}", n.at("outputs"), i), n.source());
    c.outputs.push_back({o.text("name"), o.text("baseline_sha256"), o.text("variant_sha256"),
                         diff_of(o.object("diff"))});
  }
  c.baseline_kernels = kernels_of(n, "baseline_kernels", names);
  c.variant_kernels = kernels_of(n, "variant_kernels", names);
  c.baseline_properties = properties_of(n, "baseline_properties");
  c.variant_properties = properties_of(n, "variant_properties");
  c.duration_ms = n.number<double>("duration_ms");
  return c;
}

CheckResult check_of(const Node& n) {
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
    const Node t(tallies[i], fmt::format("{}/{}", n.at("violations_by_axis"), i), n.source());
    g.violations_by_axis.push_back({t.text("axis"), t.text("value"),
                                    t.number<std::int64_t>("violated"),
                                    t.number<std::int64_t>("total")});
  }
  return g;
}

Summary summary_of(const Node& n) {
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

}  // namespace

CaseResult case_record_from_json(const Json& record, const std::string& source,
                                 const std::string& path) {
  const Node n(record, path, source);
  const Json& names = n.array("kernel_names");
  std::vector<std::string> kernel_names;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!names[i].is_string())
      n.fail(fmt::format("{}/{}", n.at("kernel_names"), i), "expected a string");
    kernel_names.push_back(names[i].get<std::string>());
  }
  return case_of(n.object("case"), kernel_names);
}

Report report_from_json(const Json& j, const std::string& source) {
  const Node top(j, "", source);
  if (top.text("schema") != "samebits.report") {
    top.fail("/schema", "expected \"samebits.report\": this file is not a samebits report");
  }
  const std::string version = top.text("schema_version");
  if (version.rfind("2.", 0) != 0) {
    top.fail("/schema_version",
             fmt::format("version {} is not one this samebits reads (2.x); rerun the contracts "
                         "with this samebits to get a current report",
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
    const Node c(contracts[i], fmt::format("/contracts/{}", i), source);
    r.contracts.push_back({c.text("name"), c.text("source"), c.text("sha256"), c.text("op"),
                           c.text("description"), c.text("text")});
  }
  r.summary = summary_of(top.object("summary"));
  const Json& checks = top.array("checks");
  for (std::size_t i = 0; i < checks.size(); ++i) {
    r.checks.push_back(check_of(Node(checks[i], fmt::format("/checks/{}", i), source)));
  }
  std::vector<std::string> names;
  if (top.has("kernel_names")) names = top.array("kernel_names").get<std::vector<std::string>>();
  const Json& cases = top.array("cases");
  r.cases.reserve(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    r.cases.push_back(case_of(Node(cases[i], fmt::format("/cases/{}", i), source), names));
  }
  if (top.has("baseline")) r.baseline_comparison = top.object("baseline").json();
  if (top.has("dispatch")) r.dispatch = dispatch_from_json(top.required("dispatch"), source);
  return r;
}

Json read_report_json(const std::string& path) {
  return parse_json_document(read_file_text(path, "the report"), path);
}

Report read_report_file(const std::string& path) {
  return report_from_json(read_report_json(path), path);
}

}  // namespace samebits
