// classify_dispatch: groups a sweep's observations into dispatch classes (kernel signatures) and
// result classes (which variants' bits differ from the reference's), with the rules that draw them.
#include "dispatch/classify.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "dispatch/rules.h"

namespace samebits {
namespace {

// Ranges a rule lists when it draws its set only roughly or not at all; the report's cases hold
// every point.
constexpr std::size_t kListedRanges = 12;

// Short kernel names, with block shapes from `detail` 1 and grid sizes from `detail` 2 on.
std::string class_label(const DispatchClass& c, int detail) {
  if (c.kernels.empty()) return "(no kernels)";
  std::vector<std::string> names;
  for (const auto& k : c.kernels) {
    std::string name = short_kernel_name(k.name);
    if (detail >= 1) name += fmt::format(" [{}]", block_dims(k.block));
    if (detail >= 2) name += fmt::format(" grid [{}]", block_dims(k.grid));
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return fmt::format("{}", fmt::join(names, " + "));
}

// Short labels; with block shapes where short names collide, grid sizes where those do (when the
// signature has them), and the id where even those do.
void label_classes(std::vector<DispatchClass>& classes, bool with_grid) {
  for (int detail = 0; detail <= (with_grid ? 2 : 1); ++detail) {
    std::map<std::string, int> uses;
    for (auto& c : classes) ++uses[c.label = class_label(c, detail)];
    bool unique = true;
    for (const auto& [label, n] : uses) unique = unique && n == 1;
    if (unique) return;
  }
  std::map<std::string, int> uses;
  for (const auto& c : classes) ++uses[c.label];
  for (auto& c : classes) {
    if (uses[c.label] > 1) c.label += fmt::format(" #{}", c.id);
  }
}

// "all variants agree", "padded:4 differs", "strided:1, offset:1 differ (padded:4 not run)",
// "none differs (padded:4 not run)".
std::string result_label(const std::vector<int>& groups, const std::vector<std::string>& variants) {
  std::vector<std::string> differing, missing;
  for (std::size_t v = 0; v < groups.size(); ++v) {
    if (groups[v] == 1) differing.push_back(variants[v]);
    if (groups[v] < 0) missing.push_back(variants[v]);
  }
  std::string label = differing.empty() ? (missing.empty() ? "all variants agree" : "none differs")
                                        : fmt::format("{} {}", fmt::join(differing, ", "),
                                                      differing.size() == 1 ? "differs" : "differ");
  if (!missing.empty()) label += fmt::format(" ({} not run)", fmt::join(missing, ", "));
  return label;
}

// Rules over the points in `domain` (positions into per-point arrays), each with its properties.
class DomainRules {
 public:
  DomainRules(const std::vector<std::size_t>& domain,
              const std::vector<const PointProperties*>& props, const std::vector<Json>& values,
              const std::string& axis)
      : domain_(domain), values_(values), axis_(axis), search_(properties_at(domain, props)) {}
  Rule find(const std::vector<bool>& inside_by_point) const {
    std::vector<bool> inside;
    inside.reserve(domain_.size());
    for (std::size_t p : domain_) inside.push_back(inside_by_point[p]);
    Rule rule = search_.find(inside);
    if (!rule.exact) {
      std::vector<Json> in;
      for (std::size_t p : domain_) {
        if (inside_by_point[p]) in.push_back(values_[p]);
      }
      rule.points = axis_ + " = " + compress_values(in, kListedRanges);
    }
    return rule;
  }

 private:
  static std::vector<PointProperties> properties_at(
      const std::vector<std::size_t>& domain, const std::vector<const PointProperties*>& props) {
    std::vector<PointProperties> properties;
    properties.reserve(domain.size());
    for (std::size_t p : domain) properties.push_back(*props[p]);
    return properties;
  }
  std::vector<std::size_t> domain_;
  const std::vector<Json>& values_;  // the swept axis' value per point
  std::string axis_;
  RuleSearch search_;
};

// A point's integer axis values, then the properties of its first variant not named alike.
PointProperties axis_properties(const SweepObservation& o) {
  PointProperties properties;
  for (const auto& [name, value] : o.params.items()) {
    if (value.is_number_integer()) properties.emplace_back(name, value.get<std::int64_t>());
  }
  const std::size_t from_params = properties.size();
  for (const auto& property : o.properties) {
    auto end = properties.begin() + static_cast<std::ptrdiff_t>(from_params);
    if (std::none_of(properties.begin(), end,
                     [&](const auto& p) { return p.first == property.first; })) {
      properties.push_back(property);
    }
  }
  return properties;
}

std::string relation_of(bool captured, std::int64_t bits, std::int64_t kernels, std::int64_t both) {
  if (bits == 0) return kRelationNoDifferences;
  if (!captured) return kRelationNotCaptured;
  if (both == 0) return kRelationOutside;
  if (both < bits) return kRelationBeyond;
  return both == kernels ? kRelationExactly : kRelationWithin;
}

// The observations as a table: seen[v][p] is variant v at point position p (-> nullptr: not run).
struct Table {
  std::vector<std::vector<const SweepObservation*>> seen;
  std::size_t points = 0;
  std::vector<Json> values;  // the swept axis' value at each point

  std::vector<const PointProperties*> properties_of(std::size_t v) const {
    std::vector<const PointProperties*> props(points, nullptr);
    for (std::size_t p = 0; p < points; ++p) {
      if (seen[v][p]) props[p] = &seen[v][p]->properties;
    }
    return props;
  }
  // Whether variant v's bits differ from the reference's on the same inputs at point p (false
  // when either did not run there).
  bool differs(std::size_t v, std::size_t p) const {
    const SweepObservation* o = seen[v][p];
    if (!o || !seen[0][p]) return false;
    const std::string& reference =
        o->reference_digest.empty() ? seen[0][p]->digest : o->reference_digest;
    return o->digest != reference;
  }
};

// Orders points by index and variants by first appearance; fills the map's variants and points.
Table tabulate(const std::vector<SweepObservation>& observations, DispatchMap& map) {
  std::map<std::int64_t, std::size_t> position_of;  // point index -> position
  for (const auto& o : observations) {
    position_of.emplace(o.point, 0);
    if (std::find(map.variants.begin(), map.variants.end(), o.variant) == map.variants.end()) {
      map.variants.push_back(o.variant);
    }
    map.kernels_captured = map.kernels_captured || !o.kernels.empty();
  }
  std::size_t next = 0;
  for (auto& [point, position] : position_of) position = next++;
  Table table;
  table.points = position_of.size();
  table.seen.assign(map.variants.size(),
                    std::vector<const SweepObservation*>(table.points, nullptr));
  map.points.assign(table.points, Json::object());
  for (const auto& o : observations) {
    const auto v = static_cast<std::size_t>(
        std::find(map.variants.begin(), map.variants.end(), o.variant) - map.variants.begin());
    const std::size_t p = position_of.at(o.point);
    if (table.seen[v][p]) {
      throw std::invalid_argument(
          fmt::format("dispatch: point {} under {} observed twice", o.point, o.variant));
    }
    table.seen[v][p] = &o;
    if (map.points[p].empty()) map.points[p] = o.params;
  }
  for (const auto& params : map.points) {
    table.values.push_back(params.contains(map.axis) ? params.at(map.axis) : Json(params.dump()));
  }
  return table;
}

// Dispatch classes, numbered in point order, then variant order, and each variant's rules.
void assign_classes(const Table& table, bool with_grid, DispatchMap& map) {
  std::map<std::string, int> id_of;
  std::vector<std::vector<int>> class_of(map.variants.size(), std::vector<int>(table.points, -1));
  for (std::size_t p = 0; p < table.points; ++p) {
    for (std::size_t v = 0; v < map.variants.size(); ++v) {
      if (!table.seen[v][p]) continue;
      const std::string signature = kernel_signature(table.seen[v][p]->kernels, with_grid);
      auto [it, added] = id_of.emplace(signature, static_cast<int>(map.classes.size()));
      if (added) {
        DispatchClass c;
        c.id = it->second, c.signature = signature, c.kernels = table.seen[v][p]->kernels;
        map.classes.push_back(std::move(c));
      }
      ++map.classes[it->second].observations;
      class_of[v][p] = it->second;
    }
  }
  label_classes(map.classes, with_grid);
  for (std::size_t v = 0; v < map.variants.size(); ++v) {
    VariantDispatch d{map.variants[v], class_of[v], {}};
    std::vector<std::size_t> domain;
    std::vector<int> present;
    for (std::size_t p = 0; p < table.points; ++p) {
      if (class_of[v][p] < 0) continue;
      domain.push_back(p);
      if (std::find(present.begin(), present.end(), class_of[v][p]) == present.end()) {
        present.push_back(class_of[v][p]);
      }
    }
    std::sort(present.begin(), present.end());
    if (present.size() > 1) {
      const DomainRules rules(domain, table.properties_of(v), table.values, map.axis);
      for (int c : present) {
        std::vector<bool> inside(table.points);
        for (std::size_t p : domain) inside[p] = class_of[v][p] == c;
        d.class_rules.emplace_back(c, rules.find(inside));
      }
    }
    map.dispatch.push_back(std::move(d));
  }
}

// Each variant against the reference: where the bits differ, and where the kernels do.
void compare_with_reference(const Table& table, DispatchMap& map) {
  auto class_at = [&](std::size_t v, std::size_t p) {
    return map.kernels_captured ? map.dispatch[v].class_of_point[p] : -1;
  };
  for (std::size_t v = 1; v < map.variants.size(); ++v) {
    ResultComparison r;
    r.variant = map.variants[v], r.reference = map.variants[0];
    std::vector<std::size_t> domain;
    std::vector<bool> bits(table.points), kernels(table.points);
    for (std::size_t p = 0; p < table.points; ++p) {
      if (!table.seen[0][p] || !table.seen[v][p]) continue;
      domain.push_back(p);
      bits[p] = table.differs(v, p);
      kernels[p] = class_at(0, p) != class_at(v, p);
      r.differing_points += bits[p] ? 1 : 0;
      r.kernel_differing_points += kernels[p] ? 1 : 0;
      if (map.kernels_captured) r.same_kernel_differences += bits[p] && !kernels[p] ? 1 : 0;
    }
    r.points = static_cast<std::int64_t>(domain.size());
    const DomainRules rules(domain, table.properties_of(v), table.values, map.axis);
    r.where_bits_differ = rules.find(bits);
    if (map.kernels_captured) r.where_kernels_differ = rules.find(kernels);
    r.relation = relation_of(map.kernels_captured, r.differing_points, r.kernel_differing_points,
                             r.differing_points - r.same_kernel_differences);
    map.results.push_back(std::move(r));
  }
}

// Result classes: at each point, which variants differ from the reference, with rules.
void classify_results(const Table& table, DispatchMap& map) {
  std::map<std::vector<int>, int> result_id;
  std::vector<PointProperties> point_properties(table.points);
  std::vector<const PointProperties*> properties(table.points);
  std::vector<std::size_t> domain;
  for (std::size_t p = 0; p < table.points; ++p) {
    std::vector<int> groups(map.variants.size(), -1);
    for (std::size_t v = 0; v < map.variants.size(); ++v) {
      const SweepObservation* o = table.seen[v][p];
      if (!o) continue;
      if (point_properties[p].empty()) point_properties[p] = axis_properties(*o);
      groups[v] = v == 0 ? 0 : (table.differs(v, p) ? 1 : 0);
    }
    auto [it, added] = result_id.emplace(groups, static_cast<int>(map.result_classes.size()));
    if (added) {
      map.result_classes.push_back({it->second, groups, result_label(groups, map.variants), 0, {}});
    }
    ++map.result_classes[it->second].points;
    map.result_class_of_point.push_back(it->second);
    properties[p] = &point_properties[p];
    domain.push_back(p);
  }
  if (map.result_classes.size() < 2) return;
  const DomainRules rules(domain, properties, table.values, map.axis);
  for (auto& rc : map.result_classes) {
    std::vector<bool> inside(table.points);
    for (std::size_t p = 0; p < table.points; ++p)
      inside[p] = map.result_class_of_point[p] == rc.id;
    rc.rule = rules.find(inside);
  }
}

}  // namespace

std::string compress_values(const std::vector<Json>& values, std::size_t limit) {
  std::vector<std::string> parts;
  std::size_t more = 0;
  for (std::size_t i = 0; i < values.size();) {
    std::size_t j = i;
    if (values[i].is_number_integer()) {
      while (j + 1 < values.size() && values[j + 1].is_number_integer() &&
             values[j + 1].get<std::int64_t>() == values[j].get<std::int64_t>() + 1) {
        ++j;
      }
    }
    const std::string first =
        values[i].is_string() ? values[i].get<std::string>() : values[i].dump();
    if (parts.size() < limit) {
      parts.push_back(j == i ? first : fmt::format("{}..{}", first, values[j].dump()));
    } else {
      ++more;
    }
    i = j + 1;
  }
  if (more > 0) parts.push_back(fmt::format("and {} more", more));
  return fmt::format("{}", fmt::join(parts, ", "));
}

DispatchMap classify_dispatch(const std::vector<SweepObservation>& observations,
                              const std::string& op, const std::string& impl,
                              const std::string& axis, bool with_grid) {
  DispatchMap map;
  map.op = op, map.impl = impl, map.axis = axis, map.signature_with_grid = with_grid;
  const Table table = tabulate(observations, map);
  if (map.kernels_captured) assign_classes(table, with_grid, map);
  compare_with_reference(table, map);
  classify_results(table, map);
  return map;
}

}  // namespace samebits
