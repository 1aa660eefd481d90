// classify_dispatch: groups a sweep's observations into dispatch classes (kernel signatures) and
// result classes (which variants' bits agree), with the rules that draw their borders.
#include "reports/dispatch.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace samebits {
namespace {

std::string dims(const std::array<std::uint32_t, 3>& d) {
  return fmt::format("{}x{}x{}", d[0], d[1], d[2]);
}

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(' ');
  if (begin == std::string::npos) return {};
  return s.substr(begin, s.find_last_not_of(' ') - begin + 1);
}

bool opens(char c) {
  return c == '<' || c == '(' || c == '[' || c == '{';
}
bool closes(char c) {
  return c == '>' || c == ')' || c == ']' || c == '}';
}

// A template argument worth showing: a number or a word, or the last part of a qualified word.
std::string simple_argument(const std::string& arg) {
  if (arg.empty() || arg.find_first_of("<>()[]{}*&") != std::string::npos) return {};
  const auto colon = arg.rfind("::");
  return colon == std::string::npos ? arg : arg.substr(colon + 2);
}

}  // namespace

std::string kernel_signature(const std::vector<KernelLaunch>& kernels, bool with_grid) {
  std::vector<std::string> items;
  for (const auto& k : kernels) {
    std::string item = fmt::format("{} [{}]", k.name, dims(k.block));
    if (with_grid) item += fmt::format(" grid [{}]", dims(k.grid));
    if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
  }
  return fmt::format("{}", fmt::join(items, "; "));
}

std::string short_kernel_name(const std::string& demangled) {
  std::string name = trim(demangled);
  // The parameter list: the bracket group closing the name.
  if (!name.empty() && name.back() == ')') {
    int depth = 0;
    for (std::size_t i = name.size(); i-- > 0;) {
      if (closes(name[i])) ++depth;
      if (opens(name[i]) && --depth == 0) {
        name = trim(name.substr(0, i));
        break;
      }
    }
  }
  // Drop the return type: the name is the last token outside any brackets
  // ("std::enable_if<!(false), void>::type internal::gemvx::kernel<int, ...>" -> "internal::...").
  {
    int level = 0;
    std::size_t cut = std::string::npos;
    for (std::size_t i = 0; i < name.size(); ++i) {
      if (opens(name[i])) ++level;
      if (closes(name[i])) --level;
      if (name[i] == ' ' && level == 0) cut = i;
    }
    if (cut != std::string::npos) name = trim(name.substr(cut + 1));
  }
  // The head before the first top-level '<', without its namespaces.
  std::size_t open = std::string::npos;
  int depth = 0;
  for (std::size_t i = 0; i < name.size() && open == std::string::npos; ++i) {
    if (name[i] == '<' && depth == 0) open = i;
    if (name[i] == '(') ++depth;  // "(anonymous namespace)"
    if (name[i] == ')') --depth;
  }
  std::string head = name.substr(0, open);
  const auto last_colon = head.rfind("::");
  if (last_colon != std::string::npos) head = head.substr(last_colon + 2);
  const auto space = head.rfind(' ');
  if (space != std::string::npos) head = head.substr(space + 1);
  if (open == std::string::npos) return head;

  std::vector<std::string> kept;
  std::string arg;
  depth = 0;
  for (std::size_t i = open + 1; i < name.size(); ++i) {
    const char c = name[i];
    if (depth == 0 && (c == ',' || c == '>')) {
      if (auto simple = simple_argument(trim(arg)); !simple.empty()) kept.push_back(simple);
      arg.clear();
      if (c == '>') break;
      continue;
    }
    if (opens(c)) ++depth;
    if (closes(c)) --depth;
    arg += c;
  }
  return kept.empty() ? head : fmt::format("{}<{}>", head, fmt::join(kept, ", "));
}

namespace {

// Short kernel names, with block shapes from `detail` 1 and grid sizes from `detail` 2 on.
std::string class_label(const DispatchClass& c, int detail) {
  if (c.kernels.empty()) return "(no kernels)";
  std::vector<std::string> names;
  for (const auto& k : c.kernels) {
    std::string name = short_kernel_name(k.name);
    if (detail >= 1) name += fmt::format(" [{}]", dims(k.block));
    if (detail >= 2) name += fmt::format(" grid [{}]", dims(k.grid));
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

std::string result_label(const std::vector<int>& groups, const std::vector<std::string>& variants) {
  std::vector<std::string> parts, missing;
  for (int g = 0;; ++g) {
    std::vector<std::string> members;
    for (std::size_t v = 0; v < groups.size(); ++v) {
      if (groups[v] == g) members.push_back(variants[v]);
    }
    if (members.empty()) break;
    parts.push_back(fmt::format("{}", fmt::join(members, " = ")));
  }
  for (std::size_t v = 0; v < groups.size(); ++v) {
    if (groups[v] < 0) missing.push_back(variants[v]);
  }
  std::string label = parts.size() == 1 && missing.empty()
                          ? "all variants agree"
                          : fmt::format("{}", fmt::join(parts, " ≠ "));
  if (!missing.empty()) label += fmt::format(" ({} not run)", fmt::join(missing, ", "));
  return label;
}

// Rules over the points in `domain` (positions into per-point arrays), each with its properties.
class DomainRules {
 public:
  DomainRules(const std::vector<std::size_t>& domain,
              const std::vector<const PointProperties*>& props)
      : domain_(domain), search_(properties_at(domain, props)) {}
  Rule find(const std::vector<bool>& inside_by_point) const {
    std::vector<bool> inside;
    inside.reserve(domain_.size());
    for (std::size_t p : domain_) inside.push_back(inside_by_point[p]);
    return search_.find(inside);
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

  std::vector<const PointProperties*> properties_of(std::size_t v) const {
    std::vector<const PointProperties*> props(points, nullptr);
    for (std::size_t p = 0; p < points; ++p) {
      if (seen[v][p]) props[p] = &seen[v][p]->properties;
    }
    return props;
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
      const DomainRules rules(domain, table.properties_of(v));
      for (int c : present) {
        std::vector<bool> inside(table.points);
        for (std::size_t p : domain) inside[p] = class_of[v][p] == c;
        d.class_rules.emplace_back(c, rules.find(inside));
      }
    }
    map.dispatch.push_back(std::move(d));
  }
}

// Each variant against the first: where the bits differ, and where the kernels do.
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
      bits[p] = table.seen[0][p]->digest != table.seen[v][p]->digest;
      kernels[p] = class_at(0, p) != class_at(v, p);
      r.differing_points += bits[p] ? 1 : 0;
      r.kernel_differing_points += kernels[p] ? 1 : 0;
      if (map.kernels_captured) r.same_kernel_differences += bits[p] && !kernels[p] ? 1 : 0;
    }
    r.points = static_cast<std::int64_t>(domain.size());
    const DomainRules rules(domain, table.properties_of(v));
    r.where_bits_differ = rules.find(bits);
    if (map.kernels_captured) r.where_kernels_differ = rules.find(kernels);
    r.relation = relation_of(map.kernels_captured, r.differing_points, r.kernel_differing_points,
                             r.differing_points - r.same_kernel_differences);
    map.results.push_back(std::move(r));
  }
}

// Result classes: the partition of the variants by digest at each point, with rules.
void classify_results(const Table& table, DispatchMap& map) {
  std::map<std::vector<int>, int> result_id;
  std::vector<PointProperties> point_properties(table.points);
  for (std::size_t p = 0; p < table.points; ++p) {
    std::vector<int> groups(map.variants.size(), -1);
    std::vector<const std::string*> digests;
    for (std::size_t v = 0; v < map.variants.size(); ++v) {
      const SweepObservation* o = table.seen[v][p];
      if (!o) continue;
      if (digests.empty()) point_properties[p] = axis_properties(*o);
      auto it = std::find_if(digests.begin(), digests.end(),
                             [&](const std::string* d) { return *d == o->digest; });
      groups[v] = static_cast<int>(it - digests.begin());
      if (it == digests.end()) digests.push_back(&o->digest);
    }
    auto [it, added] = result_id.emplace(groups, static_cast<int>(map.result_classes.size()));
    if (added) {
      map.result_classes.push_back({it->second, groups, result_label(groups, map.variants), 0, {}});
    }
    ++map.result_classes[it->second].points;
    map.result_class_of_point.push_back(it->second);
  }
  if (map.result_classes.size() < 2) return;
  const RuleSearch rules(point_properties);
  for (auto& rc : map.result_classes) {
    std::vector<bool> inside(table.points);
    for (std::size_t p = 0; p < table.points; ++p)
      inside[p] = map.result_class_of_point[p] == rc.id;
    rc.rule = rules.find(inside);
  }
}

}  // namespace

DispatchMap classify_dispatch(const std::vector<SweepObservation>& observations,
                              const std::string& op, const std::string& impl,
                              const std::string& axis, bool with_grid) {
  DispatchMap map;
  map.op = op, map.impl = impl, map.axis = axis, map.signature_with_grid = with_grid;
  const Table table = tabulate(observations, map);
  if (map.kernels_captured) assign_classes(table, with_grid, map);
  compare_with_reference(table, map);
  classify_results(table, map);
  map.findings = dispatch_findings(map);
  return map;
}

}  // namespace samebits
