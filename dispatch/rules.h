// The simplest rule over a sweep's integer properties that draws a set of points: "N % 4 == 0",
// "k <= 32", "batch >= 17 and batch <= 32", "N % 32 in 29..31". Searched, never written by hand.
#pragma once

#include <memory>
#include <vector>

#include "reports/model/dispatch_map.h"
#include "reports/model/kernel_launch.h"

namespace samebits {

// A predicate over one or two properties that holds at exactly (or, if `exact` is false, at most)
// the points of a set. One term: "P == v", "P != v", "P % m == r", "P % m != r" (m = 2, 4, 8, 16,
// 32, 64: the alignments kernels choose by), "P % m in a..b" and its negation "P % m not in
// a..b" (a run of residues a < b without wrap, m = 8..64, where P's values span at least m;
// where both forms fit, the narrower run), "P <= t", "P >= t"; failing that, two joined by "and",
// or by "or" (where "P < t" and "P > t" also appear): "N % 4 != 0 and N >= 256", "N % 4 != 0 or N <
// 128"; the cheaper term first. Among rules of as many terms the cheapest wins (a value or a parity
// costs 1; "% 4" and thresholds 2; "% 8" and "!= v" 3; "% 16" 4; "% 32" 5; "% 64" 6; a residue run
// one more than its modulus' single residue; "and" before "or"), then the earlier form, then the
// earlier property. A threshold t is the value divisible by the highest power of two among those
// that separate ("k <= 32" rather than "k <= 63" when no point lies between). "all points" / "no
// points" for a full or empty set.
//
// If none is exact, the one-term rule that agrees at the most points (exact = false), or "no
// simple rule" (matched = 0) when even that errs at more than half as many points as "all points"
// or "no points" would. Properties missing at some point are not used. std::invalid_argument when
// the sizes differ.
Rule find_rule(const std::vector<PointProperties>& properties, const std::vector<bool>& inside);

// find_rule for many sets over the same points: the properties are indexed once (residue classes
// as bitsets, values sorted), then each search takes a few passes over the points (milliseconds
// for ~6000 points and a handful of properties).
class RuleSearch {
 public:
  explicit RuleSearch(const std::vector<PointProperties>& properties);
  Rule find(const std::vector<bool>& inside) const;

  struct Index;  // defined in dispatch/terms.h

 private:
  std::shared_ptr<const Index> index_;
};

}  // namespace samebits
