// The dispatch map of a sweep, as data: which kernels each variant launched at each point, where
// its bits differ from the reference's, and the rules that draw those borders (dispatch/ makes it).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/json_document.h"
#include "reports/model/kernel_launch.h"

namespace samebits {

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
// the points of a set; dispatch/rules.h lists the forms ("N % 4 == 0", "k <= 32", ...).
struct Rule {
  std::string text;
  bool exact = false;
  std::int64_t matched = 0;     // points where rule and set agree (0 for "no simple rule")
  std::int64_t considered = 0;  // points the rule was tested on
  // Where no rule is exact, the set's points as the swept axis' values in compressed ranges,
  // "N = 127..129, 131", so a reader still sees where (at most 12 ranges, then "and 5 more").
  std::string points = {};  // (an initializer: rules are written as {text, exact, ...})
};

// The dispatch classes one variant fell into, with the rule picking each class's points.
struct VariantDispatch {
  std::string variant;
  std::vector<int> class_of_point;  // per point, a DispatchClass id (-1: not observed)
  std::vector<std::pair<int, Rule>> class_rules;  // class id -> rule (only when > 1 class)
};

// Where a variant's bits differ from the reference variant's on the same inputs, and how that
// relates to dispatch. Counted over the points both ran; rules are over the variant's properties.
struct ResultComparison {
  std::string variant;
  std::string reference;  // the reference variant of the sweep, "contiguous"
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

// Which variants' bits differ from the reference's at a point: groups[v] is 0 where variant v
// agrees with the reference, 1 where it differs, -1 where it did not run (the reference is 0).
// Ids are first-seen in point order.
struct ResultClass {
  int id = 0;
  std::vector<int> groups;
  std::string label;  // "all variants agree", "padded:4 differs", "strided:1, offset:1 differ"
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
};

}  // namespace samebits
