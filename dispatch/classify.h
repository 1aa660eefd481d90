// Dispatch maps: from what a sweep saw at each point (the kernels each variant launched, the bits
// it produced) to dispatch classes, result classes, and the simplest rules that draw their borders.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/json_document.h"
#include "dispatch/kernel_names.h"
#include "reports/model/dispatch_map.h"
#include "reports/model/kernel_launch.h"

namespace samebits {

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
  std::string digest;                 // SHA-256 of the outputs under this variant
  // The reference variant's digest on the same inputs (a case's baseline side); empty: the
  // reference variant's own observation at this point ran on the same inputs.
  std::string reference_digest;
};

// Groups observations into a dispatch map. Observations come in any order: points are ordered by
// index, variants by first appearance in the list (the first is the reference); every (point,
// variant) may appear at most once (std::invalid_argument otherwise). Class rules and comparisons
// are over each variant's own properties, result-class rules over the axis values. Where no rule
// is exact, the rule also lists the points' values of `axis` as compressed ranges.
DispatchMap classify_dispatch(const std::vector<SweepObservation>& observations,
                              const std::string& op, const std::string& impl,
                              const std::string& axis, bool with_grid);

// Values as compressed ranges: runs of consecutive integers as "first..last", other values as
// written, in the order given: "127..129, 131, 160..161"; past `limit` ranges, "and 7 more".
std::string compress_values(const std::vector<Json>& values, std::size_t limit = SIZE_MAX);

}  // namespace samebits
