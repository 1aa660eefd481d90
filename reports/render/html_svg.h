// The pictures of the HTML report, drawn by the program as inline SVG (no scripts, no images): a
// check's mismatch heatmap and a sweep's dispatch strips. Every label is escaped here.
#pragma once

#include <string>

#include "reports/model/dispatch_map.h"
#include "reports/render/heatmap.h"

namespace samebits {

// Fill colours, shared with the HTML legends: mismatch buckets (zero clearly apart from any
// difference) and categorical colours for class ids (-1: not observed).
std::string mismatch_colour(const HeatmapCell& cell);
std::string class_colour(int id);
// A result class where every variant agrees with the reference is drawn as "held"; the others by
// id.
std::string result_class_colour(const ResultClass& result_class);
inline constexpr const char* kNotRunColour = "#f3f3f3";
inline constexpr const char* kZeroColour = "#e6edf5";
inline constexpr const char* kDiffersColour = "#d7301f";

// The legend of mismatch_colour as HTML: swatches for not run, 0 and each bucket.
std::string heatmap_legend_html();

// An <svg> element and its natural width in CSS pixels (it shrinks to its container, no wider).
struct Svg {
  std::string markup;
  double width = 0;
};

// One heatmap: a cell per (x, y) with its mismatched-element count (written in the cell where it
// fits), and a <title> tooltip with the axis values, cases and counts.
Svg heatmap_svg(const Heatmap& map);

// A sweep's strips along its axis: per variant its kernel class at each point (when captured) and
// whether its bits differ from the reference variant's, then the result class of each point.
std::string dispatch_svg(const DispatchMap& map);

}  // namespace samebits
