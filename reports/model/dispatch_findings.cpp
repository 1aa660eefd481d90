// A dispatch map in words, one sentence per variant and comparison: part of the model, since the
// JSON report carries them; the terminal table (reports/render/dispatch_text.h) prints them too.
#include "reports/model/dispatch_findings.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace samebits {

std::string point_count(std::int64_t n) {
  return fmt::format("{} point{}", n, n == 1 ? "" : "s");
}

const DispatchClass& class_with_id(const DispatchMap& map, int id) {
  return map.classes.at(static_cast<std::size_t>(id));
}

// Classes present in one variant, in id order, with their point counts.
std::vector<std::pair<int, std::int64_t>> class_counts(const VariantDispatch& d) {
  std::vector<std::pair<int, std::int64_t>> counts;
  for (int c : d.class_of_point) {
    if (c < 0) continue;
    auto it =
        std::find_if(counts.begin(), counts.end(), [c](const auto& e) { return e.first == c; });
    if (it == counts.end()) {
      counts.emplace_back(c, 1);
    } else {
      ++it->second;
    }
  }
  std::sort(counts.begin(), counts.end());
  return counts;
}

const Rule* rule_of(const VariantDispatch& d, int id) {
  for (const auto& [c, rule] : d.class_rules) {
    if (c == id) return &rule;
  }
  return nullptr;
}

namespace {

constexpr std::size_t kListed = 4;  // classes named in one finding

// "where N % 4 == 0", "mostly where k <= 32 (19 of 21 points fit)".
// Without an exact rule, the points themselves follow (": at N = 127..129, 160").
std::string where(const Rule& rule) {
  if (rule.exact) return "where " + rule.text;
  const std::string at = rule.points.empty() ? "" : ": at " + rule.points;
  if (rule.matched == 0) return "where no rule of up to two terms fits" + at;
  return fmt::format("mostly where {} ({} of {} points fit){}", rule.text, rule.matched,
                     rule.considered, at);
}

std::string dispatch_finding(const DispatchMap& map, const VariantDispatch& d) {
  const auto counts = class_counts(d);
  if (counts.empty()) return fmt::format("{}: not observed", d.variant);
  if (counts.size() == 1) {
    return fmt::format("{}: {} at all {}", d.variant, class_with_id(map, counts[0].first).label,
                       point_count(counts[0].second));
  }
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < counts.size() && i < kListed; ++i) {
    const Rule* rule = rule_of(d, counts[i].first);
    parts.push_back(fmt::format("{} {}", class_with_id(map, counts[i].first).label,
                                rule ? where(*rule) : std::string("?")));
  }
  if (counts.size() > kListed) parts.push_back(fmt::format("and {} more", counts.size() - kListed));
  return fmt::format("{}: {} kernel classes: {}", d.variant, counts.size(), fmt::join(parts, ", "));
}

std::string differ_at(std::int64_t n, std::int64_t of, const Rule& rule) {
  if (n == of) return fmt::format("at all {}", point_count(of));
  return fmt::format("at {} of {}, {}", n, point_count(of), where(rule));
}

std::string result_finding(const ResultComparison& r) {
  const std::string head = fmt::format("{} vs {}: ", r.variant, r.reference);
  const std::int64_t bits = r.differing_points, kernels = r.kernel_differing_points;
  const std::string kernels_differ =
      fmt::format("the kernels differ {}", differ_at(kernels, r.points, r.where_kernels_differ));
  if (bits == 0) {
    if (r.relation == kRelationNotCaptured || r.where_kernels_differ.text.empty()) {
      return head + fmt::format("same bits at all {}", point_count(r.points));
    }
    return head + fmt::format("same bits at all {}, ", point_count(r.points)) +
           (kernels == 0 ? "with the same kernels" : "although " + kernels_differ);
  }
  const std::string bits_differ =
      head + fmt::format("bits differ {}", differ_at(bits, r.points, r.where_bits_differ));
  if (r.relation == kRelationExactly) return bits_differ + " — exactly where the kernels differ";
  if (r.relation == kRelationWithin) {
    return bits_differ + fmt::format(" — only where the kernels differ ({})", kernels_differ);
  }
  if (r.relation == kRelationBeyond) {
    return bits_differ + fmt::format(" — {} of them under the same kernels ({})",
                                     r.same_kernel_differences, kernels_differ);
  }
  if (r.relation == kRelationOutside) {
    return bits_differ + " — all under the same kernels" +
           (kernels == 0 ? "" : fmt::format(" ({}, with the same bits)", kernels_differ));
  }
  return bits_differ;
}

std::string result_classes_finding(const DispatchMap& map) {
  const auto& classes = map.result_classes;
  if (classes.size() == 1) {
    return fmt::format("bits: {} at all {}", classes[0].label, point_count(classes[0].points));
  }
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < classes.size() && i < kListed; ++i) {
    parts.push_back(fmt::format("{} {}", classes[i].label, where(classes[i].rule)));
  }
  if (classes.size() > kListed)
    parts.push_back(fmt::format("and {} more", classes.size() - kListed));
  return fmt::format("bits: {} result classes: {}", classes.size(), fmt::join(parts, "; "));
}

}  // namespace

std::vector<std::string> dispatch_findings(const DispatchMap& map) {
  std::vector<std::string> findings;
  if (map.points.empty()) return {"no points observed"};
  for (const auto& d : map.dispatch) findings.push_back(dispatch_finding(map, d));
  for (const auto& r : map.results) findings.push_back(result_finding(r));
  // With two variants the comparison already says which bits agree.
  if (map.variants.size() >= 3) findings.push_back(result_classes_finding(map));
  return findings;
}

}  // namespace samebits
