// Turns contracts into the list of cases to run on one device: validates every axis and point
// against the op and check (errors name file, JSON path and accepted values), then expands sweeps.
#include "harness/plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "cases/dtypes.h"
#include "cases/generators.h"
#include "cases/layout.h"
#include "cases/seeds.h"
#include "cases/varlen.h"
#include "common/errors.h"
#include "harness/check_spec.h"

namespace samebits {
namespace {

std::vector<AxisSpec> axes_for(const Op& op, CheckKind kind) {
  std::vector<AxisSpec> axes = op.axes();
  for (auto& a : check_spec_for(kind).axes()) axes.push_back(std::move(a));
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
    // A dtype samebits knows that this op's calls do not take: what run would refuse.
    const auto& dtypes = dtype_names();
    const bool known_dtype =
        spec.name == "dtype" &&
        std::find(dtypes.begin(), dtypes.end(), v.get<std::string>()) != dtypes.end();
    return fmt::format("{} \"{}\"; accepted: {}",
                       known_dtype ? fmt::format("op {} does not take dtype", op.name())
                                   : fmt::format("unknown {}", spec.name),
                       v.get<std::string>(), fmt::join(spec.choices, ", "));
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
  return check_spec_for(kind).impossible(p).value_or("");
}

// Why a point's call would hold more than kMaxCallElements elements, and the axis that makes it
// so ("" for the op's own shape): refused before any allocation (the allocator would fail, or
// take the machine's memory, only at run time).
struct TooLarge {
  std::string why;  // "" when the point fits
  std::string axis;
};

std::string over_limit(double elements) {
  return fmt::format(
      "one call would hold {:.3g} elements; the limit is {} (2^32, 16 GiB as float32)", elements,
      kMaxCallElements);
}

bool exceeds(double elements) {
  return elements > static_cast<double>(kMaxCallElements);
}

// The op's elements at `p` with `axis` set to `value` (the rows a layout widens, the lengths a
// padding check sets); where the op names no such axis, `fallback` (a bound from below).
double elements_with(const Op& op, const Point& p, const std::string& axis, double value,
                     double items, double fallback) {
  if (axis.empty() || !p.has(axis) || !p.at(axis).is_number_integer()) return fallback;
  Point q = p;
  q.set(axis, static_cast<std::int64_t>(std::min(value, 9.0e18)));
  return std::max(op.call_elements(q, items), fallback);
}

TooLarge too_large(const Op& op, const Point& p) {
  const double items =
      p.has("batch") ? static_cast<double>(std::max<std::int64_t>(1, p.integer("batch"))) : 1.0;
  const double elements = op.call_elements(p, items);
  if (exceeds(elements)) return {over_limit(elements), ""};
  if (p.has("lengths")) {
    // One batch of the lengths' items, each padded to the longest: at least one element a place.
    const auto lengths = p.integers("lengths");
    const std::int64_t longest = *std::max_element(lengths.begin(), lengths.end());
    const auto count = static_cast<double>(lengths.size());
    const double e =
        elements_with(op, p, op.length_axis(), static_cast<double>(longest), count,
                      std::max(op.call_elements(p, count), count * static_cast<double>(longest)));
    if (exceeds(e)) return {fmt::format("lengths up to {}: {}", longest, over_limit(e)), "lengths"};
  }
  if (p.has("layout")) {
    const Layout layout = parse_layout(p.text("layout"));
    const auto amount = static_cast<double>(layout.amount);
    const std::string axis = op.layout_axis();
    const double row = axis.empty() || !p.has(axis) ? 0.0 : static_cast<double>(p.integer(axis));
    double e = elements + amount;  // offset:<n>: n more elements of storage
    // strided:<gap> widens every row by the gap; padded:<m> rounds every row up to a multiple of
    // m (so each row holds at least m).
    if (layout.kind == LayoutKind::strided)
      e = elements_with(op, p, axis, row + amount, items, elements + amount);
    if (layout.kind == LayoutKind::padded) {
      e = elements_with(op, p, axis, std::ceil(row / amount) * amount, items,
                        std::max(elements, amount));
    }
    if (exceeds(e)) {
      return {fmt::format("layout \"{}\": {}", layout.text, over_limit(e)), "layout"};
    }
  }
  return {};
}

// The JSON path of `value` among an axis's values on `device` (the axis itself if not there).
std::string value_path(const AxisDecl& axis, const std::string& device, const Json& value) {
  const auto it = axis.values_by_device.count(device) ? axis.values_by_device.find(device)
                                                      : axis.values_by_device.find("any");
  if (it == axis.values_by_device.end()) return axis.json_path;
  const std::string where = axis.values_by_device.size() == 1 && it->first == "any"
                                ? axis.json_path
                                : axis.json_path + "/" + it->first;
  for (std::size_t i = 0; i < it->second.size(); ++i) {
    if (it->second[i] == value) return fmt::format("{}/{}", where, i);
  }
  return where;
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
  const Op* op = registry.op_for(c);
  if (!op) {
    throw_contract_error(
        c.source, "/op",
        fmt::format("unknown op \"{}\"; accepted: {}, or an ATen op by its schema "
                    "name (\"aten::NAME\", \"aten::NAME.OVERLOAD\") with \"inputs\"",
                    c.op, fmt::join(registry.names(), ", ")));
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
    const CheckSpec& kind = check_spec_for(check.kind);
    if (!kind.differentiates() &&
        std::find(supported.begin(), supported.end(), check.kind) == supported.end()) {
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
      if (!spec.fallback.is_null() || spec.optional) continue;
      const AxisDecl* given = sweep.find(spec.name);
      if (!given) {
        throw_contract_error(
            c.source, check.json_path,
            fmt::format("check {} needs axis \"{}\" ({}) in its sweep or the contract's",
                        check.name, spec.name, spec.help));
      }
      // An axis without a default needs values on every device: where a per-device object
      // leaves a device out, there is nothing to fill in (an axis with a default takes it there).
      for (const auto& device : device_names()) {
        if (given->values_for(device)) continue;
        std::vector<std::string> keyed;
        for (const auto& entry : given->values_by_device) keyed.push_back(entry.first);
        throw_contract_error(
            c.source, given->json_path,
            fmt::format("axis \"{}\" has values for {} but none for {}, and has no default: give "
                        "it \"{}\" (or \"any\") values",
                        spec.name, fmt::join(keyed, ", "), device, device));
      }
    }
    std::optional<Point> smallest;  // the point a kind that differentiates judges the op at
    double smallest_elements = 0;
    for (const auto& device : device_names()) {
      const std::uint64_t n = count_points(sweep, device);
      if (n > 1'000'000) {
        throw_contract_error(
            c.source, check.json_path,
            fmt::format("the sweep has {} points on {}; the limit is a million", n, device));
      }
      for (const auto& declared : expand_sweep(sweep, device)) {
        const Point p = resolve(declared, axes);
        std::string why, where = check.json_path;
        try {
          why = impossible_for_check(check.kind, p);
          if (why.empty()) why = op->impossible(p).value_or("");
          if (why.empty()) {
            const TooLarge large = too_large(*op, p);
            why = large.why;
            if (const AxisDecl* axis = large.axis.empty() ? nullptr : sweep.find(large.axis))
              where = value_path(*axis, device, p.at(large.axis));
          }
        } catch (const ContractError&) {
          throw;
        } catch (const std::exception& e) {
          // An op or check that could not read the point: still this contract's error, with its
          // place, not an internal one.
          why = fmt::format("cannot be checked: {}", e.what());
        }
        if (!why.empty()) {
          throw_contract_error(
              c.source, where,
              fmt::format("impossible point {} on {}: {}", declared.label(), device, why));
        }
        if (!kind.differentiates()) continue;
        const double elements = op->call_elements(p, 1);
        if (!smallest || elements < smallest_elements) {
          smallest = p;
          smallest_elements = elements;
        }
      }
    }
    if (smallest) {
      if (auto why = kind.refuses(*op, *smallest))
        throw_contract_error(c.source, check.json_path + "/kind", *why);
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
    const Op* op = registry.op_for(*c);
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
