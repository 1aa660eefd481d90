// A dispatch map in words: one finding per variant and comparison, and the terminal table (about
// 20 lines). The JSON report carries the same findings (reports/json_report.h).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "reports/dispatch_map.h"

namespace samebits {

// Per variant its kernel classes and their rules ("contiguous: 3 kernel classes:
// reduce_kernel<128, 4> where N % 4 == 0, ..."), per comparison where the bits differ and how that
// meets the kernels ("padded:4 vs contiguous: bits differ at 15 of 21 points, where N % 4 != 0 —
// exactly where the kernels differ"), and with three variants or more the result classes ("bits:
// 2 result classes: ..."). Lists stop after 4 classes ("and 5 more"). A set that no rule of up
// to two terms draws is listed as the swept values it holds ("at N = 127..129, 160").
std::vector<std::string> dispatch_findings(const DispatchMap& map);

// The terminal table: per variant its classes (points, rule, blocks, kernels; at most 6 rows per
// variant), the comparisons, the result classes (at most 6), then the findings.
void print_dispatch_table(std::FILE* out, const DispatchMap& map);

}  // namespace samebits
