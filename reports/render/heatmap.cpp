// Lays a check's cases out over two axes: the axis pair comes from a table (data, not branches),
// values are ordered numerically where they are numbers, and wide axes are merged into ranges.
#include "reports/render/heatmap.h"

#include <algorithm>
#include <map>
#include <set>

namespace samebits {

const std::vector<HeatmapAxes>& heatmap_axes() {
  static const std::vector<HeatmapAxes> pairs = {
      // Batch invariance: the item's batch size, and where in the batch it sits.
      {"batch", "position"},
      // Chunked attention: the chunk size against the sequence it chunks.
      {"chunk", "position"},
      {"chunk", "Lq"},
      {"chunk", "batch"},
      // Alignment strips: a length axis against the layout, padding or batch that meets it.
      {"N", "layout"},
      {"K", "layout"},
      {"D", "layout"},
      {"Lq", "layout"},
      {"N", "padding"},
      {"L", "padding"},
      {"Lq", "padding"},
      // Top-k: the k against the row length it selects from.
      {"k", "N"},
      {"k", "L"},
      {"N", "batch"},
      {"K", "batch"},
      {"D", "batch"},
      {"L", "batch"},
      {"Lq", "batch"},
      {"k", "batch"},
      {"N", "dtype"},
      {"K", "dtype"},
      {"D", "dtype"},
      {"L", "dtype"},
      {"k", "dtype"},
      {"Lq", "dtype"},
      {"batch", "dtype"},
      // Whatever varies alone.
      {"layout", ""},
      {"padding", ""},
      {"dtype", ""},
  };
  return pairs;
}

namespace {

std::string value_label(const Json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// Distinct values of an axis in display order: numbers ascending, anything else first-seen.
std::vector<Json> ordered_values(const std::vector<const CaseResult*>& cases,
                                 const std::string& axis) {
  std::vector<Json> values;
  std::set<std::string> seen;
  for (const CaseResult* c : cases) {
    const Json& v = c->params.at(axis);
    if (seen.insert(v.dump()).second) values.push_back(v);
  }
  const bool numeric =
      std::all_of(values.begin(), values.end(), [](const Json& v) { return v.is_number(); });
  if (numeric) {
    std::stable_sort(values.begin(), values.end(), [](const Json& a, const Json& b) {
      return a.get<double>() < b.get<double>();
    });
  }
  return values;
}

// The x axis must take several values; the y axis, if named, must be in every case and, when
// `y_varies`, take several values too.
bool fits(const HeatmapAxes& axes, const std::vector<const CaseResult*>& cases, bool y_varies) {
  const std::string x = axes.x, y = axes.y;
  for (const CaseResult* c : cases) {
    if (!c->params.is_object() || !c->params.contains(x)) return false;
    if (!y.empty() && !c->params.contains(y)) return false;
  }
  if (ordered_values(cases, x).size() < 2) return false;
  return !y_varies || y.empty() || ordered_values(cases, y).size() > 1;
}

void add_case(HeatmapCell& cell, const CaseResult& c) {
  if (c.verdict != Verdict::holds && c.verdict != Verdict::violated) {
    ++cell.not_run;
    return;
  }
  ++cell.ran;
  if (c.verdict == Verdict::violated) ++cell.violated;
  for (const auto& o : c.outputs) {
    cell.mismatched += o.diff.mismatched;
    cell.compared += o.diff.numel;
    if (o.diff.max_ulp && (!cell.max_ulp || *o.diff.max_ulp > *cell.max_ulp)) {
      cell.max_ulp = o.diff.max_ulp;
    }
  }
}

// Column of each value after merging adjacent values into at most kHeatmapMaxColumns ranges.
std::vector<std::string> column_labels(const std::vector<Json>& values,
                                       std::map<std::string, std::size_t>& column_of,
                                       std::vector<std::string>& first_values) {
  const std::size_t per = (values.size() + kHeatmapMaxColumns - 1) / kHeatmapMaxColumns;
  std::vector<std::string> labels;
  for (std::size_t first = 0; first < values.size(); first += per) {
    const std::size_t last = std::min(values.size(), first + per) - 1;
    labels.push_back(first == last ? value_label(values[first])
                                   : value_label(values[first]) + ".." + value_label(values[last]));
    first_values.push_back(value_label(values[first]));
    for (std::size_t i = first; i <= last; ++i) column_of[values[i].dump()] = labels.size() - 1;
  }
  return labels;
}

}  // namespace

std::optional<Heatmap> heatmap_of(const std::vector<const CaseResult*>& cases) {
  if (cases.empty()) return std::nullopt;
  // A pair whose y axis varies first, then any pair that fits.
  auto axes = heatmap_axes().end();
  for (bool y_varies : {true, false}) {
    axes = std::find_if(heatmap_axes().begin(), heatmap_axes().end(),
                        [&](const HeatmapAxes& a) { return fits(a, cases, y_varies); });
    if (axes != heatmap_axes().end()) break;
  }
  if (axes == heatmap_axes().end()) return std::nullopt;
  Heatmap map;
  map.x_axis = axes->x;
  map.y_axis = axes->y;
  std::map<std::string, std::size_t> column_of, row_of;
  map.x_values = column_labels(ordered_values(cases, map.x_axis), column_of, map.x_ticks);
  if (map.y_axis.empty()) {
    map.y_values = {""};
  } else {
    for (const Json& v : ordered_values(cases, map.y_axis)) {
      row_of[v.dump()] = map.y_values.size();
      map.y_values.push_back(value_label(v));
    }
  }
  map.cells.assign(map.y_values.size(), std::vector<HeatmapCell>(map.x_values.size()));
  for (const CaseResult* c : cases) {
    const std::size_t x = column_of.at(c->params.at(map.x_axis).dump());
    const std::size_t y = map.y_axis.empty() ? 0 : row_of.at(c->params.at(map.y_axis).dump());
    add_case(map.cells[y][x], *c);
  }
  // The axes summed over: every other param taking more than one value.
  for (const auto& item : cases.front()->params.items()) {
    if (item.key() == map.x_axis || item.key() == map.y_axis) continue;
    std::set<std::string> values;
    for (const CaseResult* c : cases) {
      if (c->params.contains(item.key())) values.insert(c->params.at(item.key()).dump());
    }
    if (values.size() > 1) {
      map.summed_over.push_back(item.key() + " (" + std::to_string(values.size()) + " values)");
    }
  }
  return map;
}

}  // namespace samebits
