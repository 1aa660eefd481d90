// Reading a sweep report's "dispatch" section back into the DispatchMap model (the inverse of
// dispatch_to_json), so a sweep report can be rendered or compared later.
#include "reports/dispatch_reader.h"

#include <fmt/format.h>

#include "contracts/contract_error.h"

namespace samebits {
namespace {

// nlohmann's own errors (a missing key, a wrong type) become ContractErrors naming the section.
template <typename F>
auto at_path(const std::string& source, const std::string& path, F&& read) {
  try {
    return read();
  } catch (const Json::exception& e) {
    throw_contract_error(source, path, e.what());
  }
}

Rule rule_of(const Json& j) {
  Rule r;
  r.text = j.at("text").get<std::string>();
  r.exact = j.at("exact").get<bool>();
  r.matched = j.at("matched").get<std::int64_t>();
  r.considered = j.at("considered").get<std::int64_t>();
  r.points = j.value("points", std::string());
  return r;
}

KernelLaunch kernel_of(const Json& j) {
  KernelLaunch k;
  k.name = j.at("name").get<std::string>();
  k.grid = j.at("grid").get<std::array<std::uint32_t, 3>>();
  k.block = j.at("block").get<std::array<std::uint32_t, 3>>();
  k.registers = j.at("registers").get<std::uint32_t>();
  k.static_smem = j.at("static_smem").get<std::uint32_t>();
  k.dynamic_smem = j.at("dynamic_smem").get<std::uint32_t>();
  k.count = j.at("count").get<std::uint64_t>();
  k.duration_ns = j.at("duration_ns").get<std::uint64_t>();
  return k;
}

}  // namespace

DispatchMap dispatch_from_json(const Json& j, const std::string& source) {
  DispatchMap m;
  at_path(source, "/dispatch", [&] {
    m.op = j.at("op").get<std::string>();
    m.impl = j.at("impl").get<std::string>();
    m.axis = j.at("axis").get<std::string>();
    m.variants = j.at("variants").get<std::vector<std::string>>();
    m.kernels_captured = j.at("kernels_captured").get<bool>();
    m.signature_with_grid = j.at("signature_with_grid").get<bool>();
    m.points = j.at("points").get<std::vector<Json>>();
    return 0;
  });
  at_path(source, "/dispatch/classes", [&] {
    for (const auto& c : j.at("classes")) {
      DispatchClass d;
      d.id = c.at("id").get<int>();
      d.label = c.at("label").get<std::string>();
      d.signature = c.at("signature").get<std::string>();
      d.observations = c.at("observations").get<std::int64_t>();
      for (const auto& k : c.at("kernels")) d.kernels.push_back(kernel_of(k));
      m.classes.push_back(std::move(d));
    }
    return 0;
  });
  at_path(source, "/dispatch/dispatch", [&] {
    for (const auto& d : j.at("dispatch")) {
      VariantDispatch v;
      v.variant = d.at("variant").get<std::string>();
      v.class_of_point = d.at("class_of_point").get<std::vector<int>>();
      for (const auto& r : d.at("rules")) {
        v.class_rules.emplace_back(r.at("class").get<int>(), rule_of(r.at("rule")));
      }
      m.dispatch.push_back(std::move(v));
    }
    return 0;
  });
  at_path(source, "/dispatch/results", [&] {
    for (const auto& r : j.at("results")) {
      ResultComparison c;
      c.variant = r.at("variant").get<std::string>();
      c.reference = r.at("reference").get<std::string>();
      c.points = r.at("points").get<std::int64_t>();
      c.differing_points = r.at("differing_points").get<std::int64_t>();
      c.where_bits_differ = rule_of(r.at("where_bits_differ"));
      if (m.kernels_captured) {
        c.kernel_differing_points = r.at("kernel_differing_points").get<std::int64_t>();
        c.same_kernel_differences = r.at("same_kernel_differences").get<std::int64_t>();
        c.where_kernels_differ = rule_of(r.at("where_kernels_differ"));
      }
      c.relation = r.at("relation").get<std::string>();
      m.results.push_back(std::move(c));
    }
    return 0;
  });
  at_path(source, "/dispatch/result_classes", [&] {
    for (const auto& c : j.at("result_classes")) {
      ResultClass rc;
      rc.id = c.at("id").get<int>();
      rc.label = c.at("label").get<std::string>();
      rc.groups = c.at("groups").get<std::vector<int>>();
      rc.points = c.at("points").get<std::int64_t>();
      if (c.contains("rule")) rc.rule = rule_of(c.at("rule"));
      m.result_classes.push_back(std::move(rc));
    }
    m.result_class_of_point = j.at("result_class_of_point").get<std::vector<int>>();
    return 0;
  });
  return m;
}

}  // namespace samebits
