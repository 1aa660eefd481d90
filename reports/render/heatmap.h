// Where in a check's input space the bits differ: its cases laid out over two of their axes (batch
// size x position in the batch, chunk size x query length, N x layout, ...), mismatches per cell.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reports/model/report.h"

namespace samebits {

// Two case axes (params keys) to spread cases over; an empty y draws a one-row strip.
struct HeatmapAxes {
  const char* x;
  const char* y;
};

// The pairs tried in order: the first whose x and y axes both take several values in a check's
// cases lays the check out; failing that, the first whose x axis does and whose y axis (if any)
// every case has.
const std::vector<HeatmapAxes>& heatmap_axes();

struct HeatmapCell {
  std::int64_t ran = 0;  // cases that held or were violated
  std::int64_t violated = 0;
  std::int64_t not_run = 0;     // skipped or errored
  std::int64_t mismatched = 0;  // elements that differ, over every output and case
  std::int64_t compared = 0;    // elements compared
  std::optional<std::uint64_t> max_ulp;
};

struct Heatmap {
  std::string x_axis, y_axis;                   // y_axis empty: one row
  std::vector<std::string> x_values, y_values;  // labels, numbers ascending, else first-seen
  std::vector<std::string> x_ticks;  // per column its first value (x_values may be ranges)
  std::vector<std::vector<HeatmapCell>> cells;  // [y][x]
  // Other axes that vary among the cases, summed over: "N (8 values)".
  std::vector<std::string> summed_over;
};

// Columns beyond this many are merged into ranges of adjacent values ("127..163").
inline constexpr std::size_t kHeatmapMaxColumns = 160;

// The check's cases laid out over the first pair of heatmap_axes() that fits, or nothing.
std::optional<Heatmap> heatmap_of(const std::vector<const CaseResult*>& cases);

}  // namespace samebits
