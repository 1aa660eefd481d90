// Turns contracts into the list of cases to run on one device: validates every axis and point
// against the op and check (errors name file, JSON path and accepted values), then expands sweeps.
#include "harness/plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "cases/dtypes.h"
#include "cases/generators.h"
#include "cases/layout.h"
#include "cases/seeds.h"
#include "cases/varlen.h"
#include "contracts/contract_error.h"
#include "harness/checks/check.h"

namespace samebits {
namespace {

std::vector<AxisSpec> axes_for(const Op& op, CheckKind kind) {
  std::vector<AxisSpec> axes = op.axes();
  for (auto& a : check_for(kind).axes()) axes.push_back(std::move(a));
  return axes;
}

const AxisSpec* find_axis(const std::vector<AxisSpec>& axes, const std::string& name) {
  for (const auto& a : axes) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

std::string type_name(AxisSpec::Type type) {
  switch (type) {
    case AxisSpec::Type::integer: return "an integer";
    case AxisSpec::Type::number: return "a number";
    case AxisSpec::Type::text: return "a string";
    case AxisSpec::Type::flag: return "true or false";
    case AxisSpec::Type::integer_list: return "an array of integers";
  }
  return "?";
}

bool has_type(const Json& v, AxisSpec::Type type) {
  switch (type) {
    case AxisSpec::Type::integer: return v.is_number_integer();
    case AxisSpec::Type::number: return v.is_number();
    case AxisSpec::Type::text: return v.is_string();
    case AxisSpec::Type::flag: return v.is_boolean();
    case AxisSpec::Type::integer_list:
      return v.is_array() && !v.empty() &&
             std::all_of(v.begin(), v.end(), [](const Json& e) { return e.is_number_integer(); });
  }
  return false;
}

// Checks one axis value; returns an error message or "".
std::string check_value(const Op& op, const AxisSpec& spec, const Json& v) {
  if (!has_type(v, spec.type)) {
    return fmt::format("axis \"{}\" takes {}, got {}", spec.name, type_name(spec.type), v.dump());
  }
  if (!spec.choices.empty() && std::find(spec.choices.begin(), spec.choices.end(),
                                         v.get<std::string>()) == spec.choices.end()) {
    return fmt::format("unknown {} \"{}\"; accepted: {}", spec.name, v.get<std::string>(),
                       fmt::join(spec.choices, ", "));
  }
  try {
    if (spec.name == "dtype") parse_dtype(v.get<std::string>());
    if (spec.name == "generator" && !is_generator(v.get<std::string>())) {
      std::vector<std::string> names;
      for (const auto& g : generator_catalog()) names.push_back(g.name);
      return fmt::format("unknown generator \"{}\"; accepted: {}", v.get<std::string>(),
                         fmt::join(names, ", "));
    }
    if (spec.name == "layout") {
      const Layout layout = parse_layout(v.get<std::string>());
      const auto kinds = op.layouts();
      if (layout.kind != LayoutKind::contiguous &&
          std::find(kinds.begin(), kinds.end(), layout.kind) == kinds.end()) {
        std::vector<std::string> names;
        for (auto k : kinds) names.push_back(layout_kind_name(k));
        return fmt::format("op {} does not take layout \"{}\"; accepted kinds: contiguous, {}",
                           op.name(), layout.text, fmt::join(names, ", "));
      }
    }
    if (spec.name == "padding") {
      const PaddingMode mode = parse_padding_mode(v.get<std::string>());
      const auto modes = op.paddings();
      if (std::find(modes.begin(), modes.end(), mode) == modes.end()) {
        std::vector<std::string> names;
        for (auto m : modes) names.push_back(padding_mode_name(m));
        return fmt::format("op {} does not take padding \"{}\"; accepted: {}", op.name(),
                           v.get<std::string>(),
                           names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", ")));
      }
    }
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// A check-level reason a point can never run, or "".
std::string impossible_for_check(CheckKind kind, const Point& p) {
  if (p.has("batch") && p.integer("batch") < 1) return "batch must be at least 1";
  return check_for(kind).impossible(p).value_or("");
}

// A point whose call would hold more than kMaxCallElements elements, or "": refused before any
// allocation (the allocator would fail, or take the machine's memory, only at run time).
std::string too_large(const Op& op, const Point& p) {
  const double items =
      p.has("batch") ? static_cast<double>(std::max<std::int64_t>(1, p.integer("batch"))) : 1.0;
  const double elements = op.call_elements(p, items);
  if (!(elements > static_cast<double>(kMaxCallElements))) return "";
  return fmt::format(
      "one call would hold {:.3g} elements; the limit is {} (2^32, 16 GiB as float32)", elements,
      kMaxCallElements);
}

Point resolve(const Point& declared, const std::vector<AxisSpec>& axes) {
  Point resolved = declared;
  for (const auto& a : axes) {
    if (!resolved.has(a.name) && !a.fallback.is_null()) resolved.set(a.name, a.fallback);
  }
  return resolved;
}

std::string case_id(const Contract& c, const CheckDecl& check, const std::string& impl,
                    const std::string& device, const Point& declared) {
  std::string id = fmt::format("{}/{}/{}/{}", c.name, check.name, impl, device);
  const std::string label = declared.label();
  if (!label.empty()) id += "/" + label;
  return id;
}

}  // namespace

void validate_contract(const Contract& c, const OpRegistry& registry) {
  const Op* op = registry.find(c.op);
  if (!op) {
    throw_contract_error(
        c.source, "/op",
        fmt::format("unknown op \"{}\"; accepted: {}", c.op, fmt::join(registry.names(), ", ")));
  }
  std::vector<std::string> impl_names;
  for (const auto& i : op->implementations()) impl_names.push_back(i.name);
  for (std::size_t i = 0; i < c.implementations.size(); ++i) {
    if (std::find(impl_names.begin(), impl_names.end(), c.implementations[i]) == impl_names.end()) {
      throw_contract_error(
          c.source, fmt::format("/implementations/{}", i),
          fmt::format("op {} has no implementation \"{}\"; accepted: {}", op->name(),
                      c.implementations[i], fmt::join(impl_names, ", ")));
    }
  }
  const auto supported = op->checks();
  const auto outputs = op->outputs();
  for (const auto& check : c.checks) {
    if (std::find(supported.begin(), supported.end(), check.kind) == supported.end()) {
      std::vector<std::string> names;
      for (auto k : supported) names.push_back(to_string(k));
      throw_contract_error(c.source, check.json_path + "/kind",
                           fmt::format("op {} does not support check \"{}\"; accepted: {}",
                                       op->name(), to_string(check.kind), fmt::join(names, ", ")));
    }
    for (std::size_t i = 0; i < check.compare.outputs.size(); ++i) {
      if (std::find(outputs.begin(), outputs.end(), check.compare.outputs[i]) == outputs.end()) {
        throw_contract_error(c.source, fmt::format("{}/compare/outputs/{}", check.json_path, i),
                             fmt::format("op {} has no output \"{}\"; accepted: {}", op->name(),
                                         check.compare.outputs[i], fmt::join(outputs, ", ")));
      }
    }
    const auto axes = axes_for(*op, check.kind);
    const SweepDecl sweep = merge_sweeps(c.sweep, check.sweep);
    for (const auto& axis : sweep.axes) {
      const AxisSpec* spec = find_axis(axes, axis.name);
      if (!spec) {
        std::vector<std::string> names;
        for (const auto& a : axes) names.push_back(a.name);
        throw_contract_error(
            c.source, axis.json_path,
            fmt::format("unknown axis \"{}\" for op {} and check {}; accepted: {}", axis.name,
                        op->name(), to_string(check.kind), fmt::join(names, ", ")));
      }
      for (const auto& [device, values] : axis.values_by_device) {
        for (std::size_t i = 0; i < values.size(); ++i) {
          const std::string error = check_value(*op, *spec, values[i]);
          if (!error.empty()) {
            const std::string where = axis.values_by_device.size() == 1 && device == "any"
                                          ? axis.json_path
                                          : axis.json_path + "/" + device;
            throw_contract_error(c.source, fmt::format("{}/{}", where, i), error);
          }
        }
      }
    }
    for (const auto& spec : axes) {
      if (spec.fallback.is_null() && !sweep.find(spec.name)) {
        throw_contract_error(
            c.source, check.json_path,
            fmt::format("check {} needs axis \"{}\" ({}) in its sweep or the contract's",
                        check.name, spec.name, spec.help));
      }
    }
    for (const auto& device : device_names()) {
      const std::uint64_t n = count_points(sweep, device);
      if (n > 1'000'000) {
        throw_contract_error(
            c.source, check.json_path,
            fmt::format("the sweep has {} points on {}; the limit is a million", n, device));
      }
      for (const auto& declared : expand_sweep(sweep, device)) {
        const Point p = resolve(declared, axes);
        std::string why = impossible_for_check(check.kind, p);
        if (why.empty()) why = op->impossible(p).value_or("");
        if (why.empty()) why = too_large(*op, p);
        if (!why.empty()) {
          throw_contract_error(
              c.source, check.json_path,
              fmt::format("impossible point {} on {}: {}", declared.label(), device, why));
        }
      }
    }
  }
}

std::vector<CaseSpec> plan_cases(const std::vector<std::unique_ptr<Contract>>& contracts,
                                 const OpRegistry& registry, const std::string& device,
                                 std::uint64_t seed) {
  std::vector<CaseSpec> cases;
  std::set<std::string> ids;
  for (const auto& c : contracts) {
    validate_contract(*c, registry);
    const Op* op = registry.find(c->op);
    for (const auto& check : c->checks) {
      const auto axes = axes_for(*op, check.kind);
      const SweepDecl sweep = merge_sweeps(c->sweep, check.sweep);
      const auto points = expand_sweep(sweep, device);
      for (const auto& impl : c->implementations) {
        // An equivalence check compares each implementation with `against`, not `against` with
        // itself.
        if (compares_implementations(check.kind) && impl == check.against) continue;
        for (const auto& declared : points) {
          CaseSpec spec;
          spec.contract = c.get();
          spec.check = &check;
          spec.op = op;
          spec.impl = impl;
          spec.device = device;
          spec.declared = declared;
          spec.resolved = resolve(declared, axes);
          spec.id = case_id(*c, check, impl, device, declared);
          spec.seed = case_seed(seed, c->name, check.name, declared.label());
          if (!ids.insert(spec.id).second) {
            throw ContractError(
                fmt::format("{}: two cases share the id {}: give the contracts distinct names, "
                            "and list each axis value once",
                            c->source, spec.id));
          }
          cases.push_back(std::move(spec));
        }
      }
    }
  }
  return cases;
}

}  // namespace samebits
