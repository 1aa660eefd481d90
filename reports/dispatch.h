// Dispatch maps: from what a sweep saw at each point (the kernels each variant launched, the bits
// it produced) to dispatch classes, result classes, and the simplest rules that draw their borders.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "contracts/json_document.h"
#include "reports/report.h"

namespace samebits {

// A point's integer properties, by name.
using PointProperties = std::vector<std::pair<std::string, std::int64_t>>;

// One point of a sweep under one variant (a memory layout such as "contiguous" or "padded:4").
struct SweepObservation {
  std::int64_t point = 0;        // index of the point in sweep order
  Json params = Json::object();  // the point's axis values, e.g. {"N": 131}
  std::string variant;
  // Integer properties the dispatch may follow, e.g. N, row_stride, storage_offset, k, M, batch.
  // List them in the order rules should prefer them (the swept axis first): of two equally
  // simple rules, the one over the earlier property is reported.
  PointProperties properties;
  std::vector<KernelLaunch> kernels;  // empty when kernel capture is off (the CPU)
  std::string digest;                 // SHA-256 of the item's outputs under this variant
};

// Kernels launched at a point, by name and block shape (grid sizes follow the problem size and
// are left out unless with_grid), in launch order: "name [32x4x1]; name2 [128x1x1]". Repeats are
// dropped (a launch whose name and shape already appear), so a point launching a kernel twice has
// the signature of one launching it once; launch counts are not part of the signature.
std::string kernel_signature(const std::vector<KernelLaunch>& kernels, bool with_grid);

// A demangled kernel name shortened for people: no return type, namespaces or parameter list, and
// only the simple template arguments (numbers, words; "c10::Half" -> "Half"):
// "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<...> >(...)" -> "reduce_kernel<128,
// 4>". JSON keeps the full names.
std::string short_kernel_name(const std::string& demangled);

// A kernel signature seen somewhere in the sweep. Ids are global across variants (a class id means
// the same signature everywhere) and numbered in first-seen order: point order, then variant order.
struct DispatchClass {
  int id = 0;
  std::string signature;
  // Short kernel names joined by " + "; with block shapes, then grid sizes (with_grid), then
  // " #id" where even those collide: unique in the map.
  std::string label;
  std::vector<KernelLaunch> kernels;  // as launched at the first observation of the class
  std::int64_t observations = 0;      // (point, variant) pairs in the class
};

// A predicate over one or two properties that holds at exactly (or, if `exact` is false, at most)
// the points of a set. One term: "P == v", "P != v", "P % m == r", "P % m != r" (m = 2, 4, 8, 16),
// "P <= t", "P >= t"; failing that, two joined by "and", or by "or" (where "P < t" and "P > t"
// also appear): "N % 4 != 0 and N >= 256", "N % 4 != 0 or N < 128". Among rules of as many terms
// the cheapest wins (a value or a parity costs 1; "% 4" and thresholds 2; "% 8" and "!= v" 3;
// "% 16" 4; "and" before "or"), then the earlier form, then the earlier property. A threshold t
// is the value divisible by the highest power of two among those that separate ("k <= 32" rather
// than "k <= 63" when no point lies between). "all points" / "no points" for a full or empty set.
struct Rule {
  std::string text;
  bool exact = false;
  std::int64_t matched = 0;     // points where rule and set agree (0 for "no simple rule")
  std::int64_t considered = 0;  // points the rule was tested on
};

// The dispatch classes one variant fell into, with the rule picking each class's points.
struct VariantDispatch {
  std::string variant;
  std::vector<int> class_of_point;  // per point, a DispatchClass id (-1: not observed)
  std::vector<std::pair<int, Rule>> class_rules;  // class id -> rule (only when > 1 class)
};

// Where a variant's bits differ from the reference variant's, and how that relates to dispatch.
// Counted over the points both variants ran; rules are over the compared variant's properties.
struct ResultComparison {
  std::string variant;
  std::string reference;  // the first variant of the sweep, usually "contiguous"
  std::int64_t points = 0;
  std::int64_t differing_points = 0;         // digests differ
  std::int64_t kernel_differing_points = 0;  // dispatch classes differ (0 when not captured)
  std::int64_t same_kernel_differences = 0;  // digests differ, classes agree (0: not captured)
  Rule where_bits_differ;
  Rule where_kernels_differ;  // empty text when kernels were not captured
  std::string relation;       // one of the kRelation* phrases below
};

// ResultComparison::relation, comparing the points where the bits differ (B) with those where the
// dispatch classes differ (K): B empty; B = K; B inside K; B partly outside K; B outside K; and B
// not empty with no kernels captured.
inline constexpr const char* kRelationNoDifferences = "no bit differences";
inline constexpr const char* kRelationExactly = "bits differ exactly where kernels differ";
inline constexpr const char* kRelationWithin = "bits differ only where kernels differ";
inline constexpr const char* kRelationBeyond = "bits differ also under the same kernels";
inline constexpr const char* kRelationOutside = "bits differ only under the same kernels";
inline constexpr const char* kRelationNotCaptured = "kernels not captured";

// Which variants' bits agree at a point: groups[v] numbers variant v's digest among the point's
// digests in variant order (0 for the first variant's), -1 where v did not run. Ids are
// first-seen in point order.
struct ResultClass {
  int id = 0;
  std::vector<int> groups;
  std::string label;  // "all variants agree", "contiguous = padded:4 ≠ strided:1"
  std::int64_t points = 0;
  // Only when the sweep has more than one result class; over the point's integer axis values
  // (params), then the properties of the first variant that ran there.
  Rule rule;
};

struct DispatchMap {
  std::string op;
  std::string impl;
  std::string axis;                   // the swept axis
  std::vector<std::string> variants;  // first-seen order; the first is the reference
  bool kernels_captured = false;      // some observation carried kernels
  bool signature_with_grid = false;
  std::vector<Json> points;  // params per point, in point-index order (indices need not be dense)
  std::vector<DispatchClass> classes;     // empty when not captured
  std::vector<VariantDispatch> dispatch;  // per variant; empty when not captured
  std::vector<ResultComparison> results;  // per variant after the first
  std::vector<ResultClass> result_classes;
  std::vector<int> result_class_of_point;
  std::vector<std::string> findings;  // one sentence each, for people
};

// Groups observations into a dispatch map. Observations come in any order: points are ordered by
// index, variants by first appearance in the list; every (point, variant) may appear at most once
// (std::invalid_argument otherwise). Class rules and comparisons are over each variant's own
// properties, result-class rules over the axis values (ResultClass::rule).
DispatchMap classify_dispatch(const std::vector<SweepObservation>& observations,
                              const std::string& op, const std::string& impl,
                              const std::string& axis, bool with_grid);

// The simplest rule over `properties` (per point) that holds at exactly the points in `inside`
// (forms and preference under Rule). If none is exact, the one-term rule that agrees at the most
// points (exact = false), or "no simple rule" (matched = 0) when even that errs at more than half
// as many points as "all points" or "no points" would. Properties missing at some point are not
// used. std::invalid_argument when the sizes differ.
Rule find_rule(const std::vector<PointProperties>& properties, const std::vector<bool>& inside);

// find_rule for many sets over the same points: the properties are indexed once (residue classes
// as bitsets, values sorted), then each search takes a few passes over the points (milliseconds
// for ~6000 points and a handful of properties).
class RuleSearch {
 public:
  explicit RuleSearch(const std::vector<PointProperties>& properties);
  Rule find(const std::vector<bool>& inside) const;

  struct Index;  // defined in reports/dispatch_terms.h

 private:
  std::shared_ptr<const Index> index_;
};

// The findings of a map whose other fields are filled in (classify_dispatch calls this): per
// variant its kernel classes and their rules ("contiguous: 3 kernel classes: reduce_kernel<128, 4>
// where N % 4 == 0, ..."), per comparison where the bits differ and how that meets the kernels
// ("padded:4 vs contiguous: bits differ at 15 of 21 points, where N % 4 != 0 — exactly where the
// kernels differ"), and with three variants or more the result classes ("bits: 2 result classes:
// ..."). Lists stop after 4 classes ("and 5 more").
std::vector<std::string> dispatch_findings(const DispatchMap& map);

// The "dispatch" section of a report: op, impl, axis, variants, kernels_captured,
// signature_with_grid, points (params, in order), classes [{id, label, signature, observations,
// kernels [{name, grid, block, registers, static_smem, dynamic_smem, count, duration_ns}]}],
// dispatch [{variant, class_of_point [id or -1 per point], rules [{class, rule}]}], results
// [{variant, reference, points, differing_points, where_bits_differ, and when captured
// kernel_differing_points, same_kernel_differences, where_kernels_differ; relation}],
// result_classes [{id, label, groups, points, rule (when more than one)}],
// result_class_of_point, findings. A rule is {text, exact, matched, considered}. Per-point data
// are arrays of ids parallel to points: a 6000-point, 3-variant sweep takes about 120 kB.
Json dispatch_to_json(const DispatchMap& map);

// The terminal table: per variant its classes (points, rule, blocks, kernels; at most 6 rows per
// variant), the comparisons, the result classes (at most 6), then the findings: about 20 lines.
void print_dispatch_table(std::FILE* out, const DispatchMap& map);

}  // namespace samebits
