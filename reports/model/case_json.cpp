// A case's record in a report, both ways (nlohmann's to_json/from_json, found by ADL): fields at
// their defaults left out and restored, so sweeps of thousands of identical outputs stay small.
#include "reports/model/case_json.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/json_fields.h"
#include "contracts/check_kind.h"
#include "reports/model/mismatch_bits.h"

namespace samebits {
namespace {

// JSON has no NaN or infinity: those become strings so the file stays valid.
Json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

// +0.0, what a double field holds by default (-0.0 is written: its sign is information).
bool is_zero(double v) {
  return v == 0 && !std::signbit(v);
}

// The value the bits give, where they give exactly `value` (NaNs: any NaN, as JSON keeps none).
bool bits_give(const std::string& bits, const std::string& dtype, double value) {
  const auto derived = value_of_bits(bits, dtype);
  if (!derived) return false;
  if (std::isnan(*derived) || std::isnan(value)) return std::isnan(*derived) && std::isnan(value);
  return std::memcmp(&*derived, &value, sizeof value) == 0;
}

Json mismatch_to_json(const Mismatch& m, const std::string& dtype) {
  Json j;
  j["index"] = m.index;
  if (!bits_give(m.baseline_bits, dtype, m.baseline)) j["baseline"] = number(m.baseline);
  if (!bits_give(m.variant_bits, dtype, m.variant)) j["variant"] = number(m.variant);
  j["baseline_bits"] = m.baseline_bits;
  j["variant_bits"] = m.variant_bits;
  if (ulp_of_bits(m.baseline_bits, m.variant_bits, dtype) != m.ulp) {
    j["ulp"] = m.ulp ? Json(*m.ulp) : Json(nullptr);
  }
  return j;
}

// A value left out (3.0) comes from its bits; 2.x wrote every value.
double value_from(const Fields& f, const std::string& key, const std::string& bits,
                  const std::string& dtype) {
  if (f.json().contains(key)) return f.number<double>(key);
  const auto derived = value_of_bits(bits, dtype);
  if (!derived) {
    throw FieldError("", fmt::format("missing field \"{}\" ({} \"{}\" give no {} value)", key,
                                     key + "_bits", bits, dtype));
  }
  return *derived;
}

Mismatch mismatch_from_json(const Json& j, const std::string& dtype) {
  const Fields f(j);
  Mismatch m;
  m.index = f.as<std::vector<std::int64_t>>("index");
  m.baseline_bits = f.text("baseline_bits");
  m.variant_bits = f.text("variant_bits");
  m.baseline = value_from(f, "baseline", m.baseline_bits, dtype);
  m.variant = value_from(f, "variant", m.variant_bits, dtype);
  if (!j.contains("ulp")) {
    m.ulp = ulp_of_bits(m.baseline_bits, m.variant_bits, dtype);
  } else if (f.has("ulp")) {
    m.ulp = f.number<std::uint64_t>("ulp");
  }
  return m;
}

bool standard_histogram(const DiffStats& d) {
  const auto& labels = ulp_bucket_labels();
  if (d.ulp_histogram.size() != labels.size()) return false;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (d.ulp_histogram[i].first != labels[i]) return false;
  }
  return true;
}

Json histogram_to_json(const DiffStats& d) {
  if (standard_histogram(d)) {
    std::vector<std::int64_t> counts;
    for (const auto& bucket : d.ulp_histogram) counts.push_back(bucket.second);
    while (!counts.empty() && counts.back() == 0) counts.pop_back();
    return counts;
  }
  Json hist = Json::object();
  for (const auto& [bucket, count] : d.ulp_histogram) hist[bucket] = count;
  return hist;
}

std::vector<std::pair<std::string, std::int64_t>> histogram_from_json(const Json& h) {
  std::vector<std::pair<std::string, std::int64_t>> out;
  if (h.is_array()) {
    const auto& labels = ulp_bucket_labels();
    if (h.size() > labels.size()) {
      throw FieldError("",
                       fmt::format("{} counts for the {} ULP buckets", h.size(), labels.size()));
    }
    for (std::size_t i = 0; i < labels.size(); ++i) {
      out.emplace_back(labels[i], i < h.size() ? h[i].get<std::int64_t>() : 0);
    }
    return out;
  }
  if (!h.is_object()) {
    throw FieldError("", fmt::format("expected an array or an object, got {}", h.type_name()));
  }
  for (const auto& item : h.items()) out.emplace_back(item.key(), item.value().get<std::int64_t>());
  return out;
}

Comparison comparison_from_json(const Json& j) {
  const Fields f(j);
  Comparison c;
  c.mode = f.enumerated<CompareMode>("mode", compare_mode_names());
  if (f.has("rtol")) c.rtol = f.number<double>("rtol");
  if (f.has("atol")) c.atol = f.number<double>("atol");
  c.max_ulp = f.number<std::int64_t>("max_ulp");
  c.equal_nan = f.flag("equal_nan");
  if (f.has("max_mismatches")) c.max_mismatches = f.number<std::int64_t>("max_mismatches");
  if (f.has("max_mismatch_fraction")) {
    c.max_mismatch_fraction = f.number<double>("max_mismatch_fraction");
  }
  if (f.has("outputs")) c.outputs = f.as<std::vector<std::string>>("outputs");
  return c;
}

PointProperties properties_from_json(const Fields& f, const std::string& key) {
  PointProperties out;
  if (!f.has(key)) return out;
  const Json& v = f.json().at(key);
  if (!v.is_object()) {
    throw FieldError(Fields::at(key), fmt::format("expected an object, got {}", v.type_name()));
  }
  within(Fields::at(key), [&] {
    for (const auto& item : v.items())
      out.emplace_back(item.key(), item.value().get<std::int64_t>());
  });
  return out;
}

Json properties_to_json(const PointProperties& properties) {
  Json j = Json::object();
  for (const auto& [name, value] : properties) j[name] = value;
  return j;
}

}  // namespace

Json seed_to_json(std::uint64_t seed) {
  return std::to_string(seed);
}

std::uint64_t seed_from_json(const Fields& f) {
  const Json& v = f.required("seed");
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();  // schema 1.x wrote numbers
  const std::string s = f.text("seed");
  if (s.empty() || s.size() > 20 || s.find_first_not_of("0123456789") != std::string::npos) {
    throw FieldError("/seed", fmt::format("expected a decimal seed, got \"{}\"", s));
  }
  try {
    return std::stoull(s);
  } catch (const std::exception&) {
    throw FieldError("/seed", fmt::format("\"{}\" is past 2^64 - 1", s));
  }
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

void to_json(Json& j, const DiffStats& d) {
  j = Json::object();
  if (d.mode != CompareMode::bitwise) j["mode"] = to_string(d.mode);
  j["dtype"] = d.dtype;
  j["shape"] = d.shape;
  j["numel"] = d.numel;
  if (d.mismatched != 0) j["mismatched"] = d.mismatched;
  if (!is_zero(d.mismatch_fraction)) j["mismatch_fraction"] = number(d.mismatch_fraction);
  if (!d.within) j["within"] = false;
  if (!is_zero(d.max_abs_error)) j["max_abs_error"] = number(d.max_abs_error);
  if (!is_zero(d.max_rel_error)) j["max_rel_error"] = number(d.max_rel_error);
  if (d.max_ulp) j["max_ulp"] = *d.max_ulp;
  if (d.nonfinite_mismatches != 0) j["nonfinite_mismatches"] = d.nonfinite_mismatches;
  if (!d.ulp_histogram.empty()) j["ulp_histogram"] = histogram_to_json(d);
  if (!d.first_mismatches.empty()) {
    Json first = Json::array();
    for (const auto& m : d.first_mismatches) first.push_back(mismatch_to_json(m, d.dtype));
    j["first_mismatches"] = std::move(first);
  }
  if (!d.tolerance.empty()) j["tolerance"] = d.tolerance;
}

void from_json(const Json& j, DiffStats& d) {
  const Fields f(j);
  d = DiffStats{};
  d.mode = f.enumerated<CompareMode>("mode", compare_mode_names(), CompareMode::bitwise);
  d.dtype = f.text("dtype");
  d.shape = f.as<std::vector<std::int64_t>>("shape");
  d.numel = f.number<std::int64_t>("numel");
  d.mismatched = f.number<std::int64_t>("mismatched");
  d.mismatch_fraction = f.number<double>("mismatch_fraction");
  d.within = f.flag("within", true);
  d.max_abs_error = f.number<double>("max_abs_error");
  d.max_rel_error = f.number<double>("max_rel_error");
  if (f.has("max_ulp")) d.max_ulp = f.number<std::uint64_t>("max_ulp");
  d.nonfinite_mismatches = f.number<std::int64_t>("nonfinite_mismatches");
  if (f.has("ulp_histogram")) {
    d.ulp_histogram = within(Fields::at("ulp_histogram"),
                             [&] { return histogram_from_json(j.at("ulp_histogram")); });
  }
  if (f.has("first_mismatches")) {
    const Json& first = f.array("first_mismatches");
    for (std::size_t i = 0; i < first.size(); ++i) {
      d.first_mismatches.push_back(within(fmt::format("/first_mismatches/{}", i),
                                          [&] { return mismatch_from_json(first[i], d.dtype); }));
    }
  }
  d.tolerance = f.text("tolerance");
}

void to_json(Json& j, const OutputResult& o) {
  j = Json{{"name", o.name},
           {"baseline_sha256", o.baseline_sha256},
           {"variant_sha256", o.variant_sha256},
           {"diff", o.diff}};
}

void from_json(const Json& j, OutputResult& o) {
  const Fields f(j);
  o.name = f.text("name");
  o.baseline_sha256 = f.text("baseline_sha256");
  o.variant_sha256 = f.text("variant_sha256");
  o.diff = f.as<DiffStats>("diff");
}

void to_json(Json& j, const KernelLaunch& k) {
  j = Json::object();
  j["name"] = k.name;
  j["grid"] = k.grid;
  j["block"] = k.block;
  j["registers"] = k.registers;
  j["static_smem"] = k.static_smem;
  j["dynamic_smem"] = k.dynamic_smem;
  j["count"] = k.count;
  j["duration_ns"] = k.duration_ns;
}

void from_json(const Json& j, KernelLaunch& k) {
  const Fields f(j);
  k.name = f.text("name");
  k.grid = f.as<std::array<std::uint32_t, 3>>("grid");
  k.block = f.as<std::array<std::uint32_t, 3>>("block");
  k.registers = f.number<std::uint32_t>("registers");
  k.static_smem = f.number<std::uint32_t>("static_smem");
  k.dynamic_smem = f.number<std::uint32_t>("dynamic_smem");
  k.count = f.number<std::uint64_t>("count");
  k.duration_ns = f.number<std::uint64_t>("duration_ns");
}

void to_json(Json& j, const CaseResult& c) {
  j = Json::object();
  j["id"] = c.id;
  if (c.index != 0) j["index"] = c.index;
  j["contract"] = c.contract;
  j["check"] = c.check;
  j["kind"] = to_string(c.kind);
  j["impl"] = c.impl;
  j["device"] = c.device;
  j["params"] = c.params;
  j["seed"] = seed_to_json(c.seed);
  j["verdict"] = to_string(c.verdict);
  if (c.expected != Expectation::unknown) j["expected"] = to_string(c.expected);
  if (c.expected_from != ExpectationSource::promise)
    j["expected_from"] = to_string(c.expected_from);
  if (!c.observed_on.empty()) j["observed_on"] = c.observed_on;
  if (c.recorded_varying) j["recorded_varying"] = true;
  if (!c.reason.empty()) j["reason"] = c.reason;
  if (!c.baseline.empty()) j["baseline"] = c.baseline;
  if (!c.variant.empty()) j["variant"] = c.variant;
  Json comparison = comparison_to_json(c.comparison);
  if (comparison != comparison_to_json(Comparison{})) j["comparison"] = std::move(comparison);
  j["outputs"] = c.outputs;
  if (!c.baseline_kernels.empty()) j["baseline_kernels"] = c.baseline_kernels;
  if (!c.variant_kernels.empty()) j["variant_kernels"] = c.variant_kernels;
  if (!c.baseline_properties.empty()) {
    j["baseline_properties"] = properties_to_json(c.baseline_properties);
  }
  if (!c.variant_properties.empty()) {
    j["variant_properties"] = properties_to_json(c.variant_properties);
  }
  j["duration_ms"] = c.duration_ms;
}

void from_json(const Json& j, CaseResult& c) {
  const Fields f(j);
  c = CaseResult{};
  c.id = f.text("id");
  c.index = f.number<std::int64_t>("index");
  c.contract = f.text("contract");
  c.check = f.text("check");
  c.kind = f.enumerated<CheckKind>("kind", check_kind_names());
  c.impl = f.text("impl");
  c.device = f.text("device");
  c.params = f.required("params");
  c.seed = seed_from_json(f);
  c.verdict = f.enumerated<Verdict>("verdict", verdict_names());
  c.expected = f.enumerated<Expectation>("expected", expectation_names(), Expectation::unknown);
  c.expected_from = f.enumerated<ExpectationSource>("expected_from", expectation_source_names(),
                                                    ExpectationSource::promise);
  c.observed_on = f.text("observed_on");
  c.recorded_varying = f.flag("recorded_varying");
  c.reason = f.text("reason");
  c.baseline = f.text("baseline");
  c.variant = f.text("variant");
  if (f.has("comparison")) {
    c.comparison = within("/comparison", [&] { return comparison_from_json(j.at("comparison")); });
  }
  f.array("outputs");  // present in every layout, if empty
  c.outputs = f.list<OutputResult>("outputs");
  c.baseline_kernels = f.list<KernelLaunch>("baseline_kernels");
  c.variant_kernels = f.list<KernelLaunch>("variant_kernels");
  c.baseline_properties = properties_from_json(f, "baseline_properties");
  c.variant_properties = properties_from_json(f, "variant_properties");
  c.duration_ms = f.number<double>("duration_ms");
}

}  // namespace samebits
