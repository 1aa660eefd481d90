// A dispatch map in words: one finding per variant and comparison, carried by the JSON report and
// printed under the terminal table (reports/render/dispatch_text.h).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "reports/model/dispatch_map.h"

namespace samebits {

// Per variant its kernel classes and their rules ("contiguous: 3 kernel classes:
// reduce_kernel<128, 4> where N % 4 == 0, ..."), per comparison where the bits differ and how that
// meets the kernels ("padded:4 vs contiguous: bits differ at 15 of 21 points, where N % 4 != 0 —
// exactly where the kernels differ"), and with three variants or more the result classes ("bits:
// 2 result classes: ..."). Lists stop after 4 classes ("and 5 more"). A set that no rule of up
// to two terms draws is listed as the swept values it holds ("at N = 127..129, 160").
std::vector<std::string> dispatch_findings(const DispatchMap& map);

// "1 point", "21 points".
std::string point_count(std::int64_t n);
// The class with this id (ids are positions in map.classes).
const DispatchClass& class_with_id(const DispatchMap& map, int id);
// The classes present in one variant, in id order, with their point counts.
std::vector<std::pair<int, std::int64_t>> class_counts(const VariantDispatch& d);
// The rule that draws class `id` in this variant; null when the class covers every point.
const Rule* rule_of(const VariantDispatch& d, int id);

}  // namespace samebits
