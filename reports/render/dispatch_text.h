// A dispatch map for people: the terminal table (about 20 lines) and the findings under it
// (reports/model/dispatch_findings.h, which the JSON report carries too).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "reports/model/dispatch_findings.h"
#include "reports/model/dispatch_map.h"

namespace samebits {

// The terminal table: per variant its classes (points, rule, blocks, kernels; at most 6 rows per
// variant), the comparisons, the result classes (at most 6), then the findings.
void print_dispatch_table(std::FILE* out, const DispatchMap& map);

}  // namespace samebits
