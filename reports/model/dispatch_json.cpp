// A sweep's dispatch map as the report's "dispatch" section, both ways (nlohmann's
// to_json/from_json, found by ADL): one definition per record, so writer and reader cannot drift.
#include "reports/model/dispatch_json.h"

#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "common/json_fields.h"
#include "reports/model/case_json.h"
#include "reports/model/dispatch_findings.h"

namespace samebits {
namespace {

// A result's fields that only a map with kernels captured writes.
const char* const kKernelFields[] = {"kernel_differing_points", "same_kernel_differences",
                                     "where_kernels_differ"};

// A field that every layout writes as an array, each element by T's from_json.
template <typename T>
std::vector<T> required_list(const Fields& f, const std::string& key) {
  f.array(key);
  return f.list<T>(key);
}

}  // namespace

void to_json(Json& j, const Rule& rule) {
  j = Json::object();
  j["text"] = rule.text;
  j["exact"] = rule.exact;
  j["matched"] = rule.matched;
  j["considered"] = rule.considered;
  if (!rule.points.empty()) j["points"] = rule.points;
}

void from_json(const Json& j, Rule& rule) {
  const Fields f(j);
  rule = Rule{};
  rule.text = f.as<std::string>("text");
  rule.exact = f.as<bool>("exact");
  rule.matched = f.as<std::int64_t>("matched");
  rule.considered = f.as<std::int64_t>("considered");
  rule.points = f.text("points");
}

void to_json(Json& j, const DispatchClass& c) {
  j = Json::object();
  j["id"] = c.id;
  j["label"] = c.label;
  j["signature"] = c.signature;
  j["observations"] = c.observations;
  j["kernels"] = c.kernels;
}

void from_json(const Json& j, DispatchClass& c) {
  const Fields f(j);
  c = DispatchClass{};
  c.id = f.as<int>("id");
  c.label = f.as<std::string>("label");
  c.signature = f.as<std::string>("signature");
  c.observations = f.as<std::int64_t>("observations");
  c.kernels = required_list<KernelLaunch>(f, "kernels");
}

void to_json(Json& j, const VariantDispatch& d) {
  j = Json::object();
  j["variant"] = d.variant;
  j["class_of_point"] = d.class_of_point;
  Json rules = Json::array();
  for (const auto& [id, rule] : d.class_rules) rules.push_back(Json{{"class", id}, {"rule", rule}});
  j["rules"] = std::move(rules);
}

void from_json(const Json& j, VariantDispatch& d) {
  const Fields f(j);
  d = VariantDispatch{};
  d.variant = f.as<std::string>("variant");
  d.class_of_point = f.as<std::vector<int>>("class_of_point");
  const Json& rules = f.array("rules");
  for (std::size_t i = 0; i < rules.size(); ++i) {
    d.class_rules.push_back(within(fmt::format("/rules/{}", i), [&] {
      const Fields r(rules[i]);
      return std::pair<int, Rule>(r.as<int>("class"), r.as<Rule>("rule"));
    }));
  }
}

void to_json(Json& j, const ResultComparison& r) {
  j = Json::object();
  j["variant"] = r.variant;
  j["reference"] = r.reference;
  j["points"] = r.points;
  j["differing_points"] = r.differing_points;
  j["where_bits_differ"] = r.where_bits_differ;
  j["kernel_differing_points"] = r.kernel_differing_points;
  j["same_kernel_differences"] = r.same_kernel_differences;
  j["where_kernels_differ"] = r.where_kernels_differ;
  j["relation"] = r.relation;
}

void from_json(const Json& j, ResultComparison& r) {
  const Fields f(j);
  r = ResultComparison{};
  r.variant = f.as<std::string>("variant");
  r.reference = f.as<std::string>("reference");
  r.points = f.as<std::int64_t>("points");
  r.differing_points = f.as<std::int64_t>("differing_points");
  r.where_bits_differ = f.as<Rule>("where_bits_differ");
  r.kernel_differing_points = f.number<std::int64_t>("kernel_differing_points");
  r.same_kernel_differences = f.number<std::int64_t>("same_kernel_differences");
  if (f.has("where_kernels_differ")) r.where_kernels_differ = f.as<Rule>("where_kernels_differ");
  r.relation = f.as<std::string>("relation");
}

void to_json(Json& j, const ResultClass& c) {
  j = Json::object();
  j["id"] = c.id;
  j["label"] = c.label;
  j["groups"] = c.groups;
  j["points"] = c.points;
  j["rule"] = c.rule;
}

void from_json(const Json& j, ResultClass& c) {
  const Fields f(j);
  c = ResultClass{};
  c.id = f.as<int>("id");
  c.label = f.as<std::string>("label");
  c.groups = f.as<std::vector<int>>("groups");
  c.points = f.as<std::int64_t>("points");
  if (f.has("rule")) c.rule = f.as<Rule>("rule");
}

void to_json(Json& j, const DispatchMap& map) {
  j = Json::object();
  j["op"] = map.op;
  j["impl"] = map.impl;
  j["axis"] = map.axis;
  j["variants"] = map.variants;
  j["kernels_captured"] = map.kernels_captured;
  j["signature_with_grid"] = map.signature_with_grid;
  j["points"] = map.points;
  j["classes"] = map.classes;
  j["dispatch"] = map.dispatch;
  Json results = Json::array();
  for (const auto& r : map.results) {
    Json result = r;
    if (!map.kernels_captured) {
      for (const char* key : kKernelFields) result.erase(key);
    }
    results.push_back(std::move(result));
  }
  j["results"] = std::move(results);
  Json result_classes = Json::array();
  for (const auto& c : map.result_classes) {
    Json result_class = c;
    if (map.result_classes.size() <= 1) result_class.erase("rule");
    result_classes.push_back(std::move(result_class));
  }
  j["result_classes"] = std::move(result_classes);
  j["result_class_of_point"] = map.result_class_of_point;
  j["findings"] = dispatch_findings(map);
}

void from_json(const Json& j, DispatchMap& map) {
  const Fields f(j);
  map = DispatchMap{};
  map.op = f.as<std::string>("op");
  map.impl = f.as<std::string>("impl");
  map.axis = f.as<std::string>("axis");
  map.variants = f.as<std::vector<std::string>>("variants");
  map.kernels_captured = f.as<bool>("kernels_captured");
  map.signature_with_grid = f.as<bool>("signature_with_grid");
  map.points = f.as<std::vector<Json>>("points");
  map.classes = required_list<DispatchClass>(f, "classes");
  map.dispatch = required_list<VariantDispatch>(f, "dispatch");
  map.results = required_list<ResultComparison>(f, "results");
  map.result_classes = required_list<ResultClass>(f, "result_classes");
  map.result_class_of_point = f.as<std::vector<int>>("result_class_of_point");
}

}  // namespace samebits
