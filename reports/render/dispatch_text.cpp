// A dispatch map for people: the terminal table, then the findings (reports/model/
// dispatch_findings.h). It reads the map as dispatch/ made it and computes nothing the map lacks.
#include "reports/render/dispatch_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "reports/model/dispatch_findings.h"

namespace samebits {
namespace {

constexpr std::size_t kTableRows = 6;  // classes per variant, and result classes, in the table

// The same, short, for table cells: a short list of points stands in for a missing rule.
std::string cell(const Rule& rule) {
  if (rule.exact || rule.text.empty()) return rule.text;
  constexpr std::size_t kCellPoints = 32;
  if (rule.matched == 0) {
    return !rule.points.empty() && rule.points.size() <= kCellPoints ? rule.points : "(no rule)";
  }
  return fmt::format("~{} ({}/{})", rule.text, rule.matched, rule.considered);
}

std::string blocks(const DispatchClass& c) {
  std::vector<std::string> shapes;
  for (const auto& k : c.kernels) {
    shapes.push_back(fmt::format("{}x{}x{}", k.block[0], k.block[1], k.block[2]));
  }
  return fmt::format("{}", fmt::join(shapes, "+"));
}

std::size_t widest(std::size_t at_least, const std::vector<std::string>& column) {
  for (const auto& s : column) at_least = std::max(at_least, s.size());
  return at_least;
}

}  // namespace

void print_dispatch_table(std::FILE* out, const DispatchMap& map) {
  fmt::print(out, "\ndispatch: {} ({}) over {}, {}, variants {}; {}\n", map.op, map.impl, map.axis,
             point_count(static_cast<std::int64_t>(map.points.size())),
             fmt::join(map.variants, ", "),
             map.kernels_captured ? (map.signature_with_grid ? "kernels by name, block and grid"
                                                             : "kernels by name and block")
                                  : "kernels not captured");
  std::vector<std::string> first_column = map.variants;
  if (!map.variants.empty()) first_column.push_back("vs " + map.variants[0]);
  first_column.push_back(fmt::format("class {}", map.result_classes.size()));
  const std::size_t w_variant = widest(7, first_column);
  if (map.kernels_captured) {
    std::vector<std::vector<std::string>> rows;  // variant, class, points, rule, blocks, kernels
    for (const auto& d : map.dispatch) {
      const auto counts = class_counts(d);
      for (std::size_t i = 0; i < counts.size(); ++i) {
        const std::string variant = i == 0 ? d.variant : "";
        if (i == kTableRows && counts.size() > kTableRows + 1) {
          std::int64_t rest = 0;
          for (std::size_t k = i; k < counts.size(); ++k) rest += counts[k].second;
          rows.push_back({variant, "", std::to_string(rest), "", "",
                          fmt::format("… {} more classes", counts.size() - i)});
          break;
        }
        const DispatchClass& c = class_with_id(map, counts[i].first);
        const Rule* rule = rule_of(d, c.id);
        rows.push_back({variant, std::to_string(c.id), std::to_string(counts[i].second),
                        rule ? cell(*rule) : "all points", blocks(c), c.label});
      }
    }
    std::vector<std::size_t> w = {w_variant, 5, 6, 4, 6};
    for (const auto& row : rows) {
      for (std::size_t k = 0; k < w.size(); ++k) w[k] = std::max(w[k], row[k].size());
    }
    fmt::print(out, "  {:<{}}  {:<{}}  {:>{}}  {:<{}}  {:<{}}  {}\n", "variant", w[0], "class",
               w[1], "points", w[2], "rule", w[3], "blocks", w[4], "kernels");
    for (const auto& row : rows) {
      fmt::print(out, "  {:<{}}  {:<{}}  {:>{}}  {:<{}}  {:<{}}  {}\n", row[0], w[0], row[1], w[1],
                 row[2], w[2], row[3], w[3], row[4], w[4], row[5]);
    }
  }
  if (!map.results.empty()) {
    std::vector<std::string> bits, bits_where, kernels, kernels_where;
    for (const auto& r : map.results) {
      bits.push_back(fmt::format("{}/{}", r.differing_points, r.points));
      bits_where.push_back(cell(r.where_bits_differ));
      kernels.push_back(
          map.kernels_captured ? fmt::format("{}/{}", r.kernel_differing_points, r.points) : "-");
      kernels_where.push_back(map.kernels_captured ? cell(r.where_kernels_differ) : "-");
    }
    const std::size_t w_bits = widest(4, bits), w_bw = widest(5, bits_where);
    const std::size_t w_k = widest(7, kernels), w_kw = widest(5, kernels_where);
    fmt::print(out, "  {:<{}}  {:>{}}  {:<{}}  {:>{}}  {:<{}}  {}\n", "vs " + map.variants[0],
               w_variant, "bits", w_bits, "where", w_bw, "kernels", w_k, "where", w_kw, "relation");
    for (std::size_t i = 0; i < map.results.size(); ++i) {
      fmt::print(out, "  {:<{}}  {:>{}}  {:<{}}  {:>{}}  {:<{}}  {}\n", map.results[i].variant,
                 w_variant, bits[i], w_bits, bits_where[i], w_bw, kernels[i], w_k, kernels_where[i],
                 w_kw, map.results[i].relation);
    }
  }
  if (map.variants.size() >= 2) {
    std::vector<std::string> rules;
    for (std::size_t i = 0; i < map.result_classes.size() && i < kTableRows; ++i) {
      rules.push_back(map.result_classes.size() > 1 ? cell(map.result_classes[i].rule)
                                                    : "all points");
    }
    const std::size_t w_rule = widest(4, rules);
    fmt::print(out, "  {:<{}}  {:>6}  {:<{}}  {}\n", "bits", w_variant, "points", "rule", w_rule,
               "variants");
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const ResultClass& rc = map.result_classes[i];
      fmt::print(out, "  {:<{}}  {:>6}  {:<{}}  {}\n", fmt::format("class {}", rc.id), w_variant,
                 rc.points, rules[i], w_rule, rc.label);
    }
    if (map.result_classes.size() > kTableRows) {
      fmt::print(out, "  … {} more result classes\n", map.result_classes.size() - kTableRows);
    }
  }
  for (const auto& finding : dispatch_findings(map)) fmt::print(out, "  - {}\n", finding);
}

}  // namespace samebits
