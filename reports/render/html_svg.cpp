// Inline SVG for the HTML report: sizes follow the data (cells narrow as columns grow, labels thin
// out to fit), colours come from two small tables, and each mark carries a <title> tooltip.
#include "reports/render/html_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <set>

#include "reports/render/markup.h"

namespace samebits {
namespace {

// Mismatched elements per cell: upper bounds of each bucket and its fill (light to dark red).
struct Bucket {
  std::int64_t below;
  const char* fill;
  const char* label;
  bool dark;  // text on it is written white
};
const std::vector<Bucket>& buckets() {
  static const std::vector<Bucket> table = {
      {10, "#fdbb84", "1-9", false},
      {100, "#f4734a", "10-99", false},
      {1000, "#d7301f", "100-999", true},
      {10000, "#a50f15", "1k-9.9k", true},
      {std::numeric_limits<std::int64_t>::max(), "#5e0a0f", "10k and more", true},
  };
  return table;
}

const Bucket* bucket_of(const HeatmapCell& cell) {
  if (cell.ran == 0 || (cell.mismatched == 0 && cell.violated == 0)) return nullptr;
  const std::int64_t n = std::max<std::int64_t>(cell.mismatched, 1);
  for (const auto& b : buckets()) {
    if (n < b.below) return &b;
  }
  return &buckets().back();
}

// Categorical colours for class ids, distinct in hue and lightness.
const std::vector<const char*>& palette() {
  static const std::vector<const char*> colours = {"#3b75af", "#ef8a17", "#519e3e", "#c53a32",
                                                   "#8d69b8", "#84584e", "#d57dbf", "#7f7f7f",
                                                   "#b5bd61", "#17becf"};
  return colours;
}

constexpr double kCharWidth = 6.4;  // px per character at the 11 px labels

double text_width(const std::string& s) {
  return kCharWidth * static_cast<double>(s.size());
}

std::string compact(std::int64_t n) {
  if (n < 1000) return std::to_string(n);
  if (n < 10000) return fmt::format("{:.1f}k", static_cast<double>(n) / 1e3);
  if (n < 1000000) return fmt::format("{}k", n / 1000);
  return fmt::format("{:.1f}M", static_cast<double>(n) / 1e6);
}

std::string short_label(const std::string& s, std::size_t max) {
  return s.size() <= max ? s : s.substr(0, max - 1) + "\u2026";
}

std::string cell_title(const Heatmap& map, std::size_t y, std::size_t x) {
  const HeatmapCell& c = map.cells[y][x];
  std::string where = map.x_axis + "=" + map.x_values[x];
  if (!map.y_axis.empty()) where += ", " + map.y_axis + "=" + map.y_values[y];
  if (c.ran == 0) return fmt::format("{}: not run ({} skipped or errored)", where, c.not_run);
  std::string out = fmt::format("{}: {} of {} cases violated; {} of {} elements differ", where,
                                c.violated, c.ran, c.mismatched, c.compared);
  if (c.max_ulp && *c.max_ulp > 0) out += fmt::format(", max {} ULP", *c.max_ulp);
  if (c.not_run > 0) out += fmt::format("; {} not run", c.not_run);
  return out;
}

}  // namespace

std::string mismatch_colour(const HeatmapCell& cell) {
  if (cell.ran == 0) return kNotRunColour;
  const Bucket* b = bucket_of(cell);
  return b ? b->fill : kZeroColour;
}

std::string class_colour(int id) {
  if (id < 0) return "#ffffff";
  return palette()[static_cast<std::size_t>(id) % palette().size()];
}

std::string result_class_colour(const ResultClass& result_class) {
  const bool agree = std::all_of(result_class.groups.begin(), result_class.groups.end(),
                                 [](int g) { return g <= 0; });
  return agree ? kZeroColour : class_colour(result_class.id);
}

std::string heatmap_legend_html() {
  std::string out = "<div class=\"legend\"><span class=\"lt\">elements that differ:</span>";
  const auto swatch = [&](const std::string& fill, const std::string& label, bool dashed) {
    out += fmt::format("<span class=\"sw{}\" style=\"background:{}\"></span>{}",
                       dashed ? " dashed" : "", fill, label);
  };
  swatch(kNotRunColour, "not run", true);
  swatch(kZeroColour, "0 (held)", false);
  for (const auto& b : buckets()) swatch(b.fill, b.label, false);
  return out + "</div>";
}

Svg heatmap_svg(const Heatmap& map) {
  const std::size_t cols = map.x_values.size(), rows = map.y_values.size();
  double label_w = 0;
  for (const auto& v : map.x_ticks) label_w = std::max(label_w, text_width(v) + 8);
  const double cw = std::clamp(720.0 / static_cast<double>(cols), 4.0, std::max(48.0, label_w));
  const double ch = 22;
  constexpr std::size_t kMaxYLabel = 22;
  double y_label_w = text_width(map.y_axis);
  for (const auto& v : map.y_values)
    y_label_w = std::max(y_label_w, text_width(short_label(v, kMaxYLabel)));
  // Room for the row labels, and for half of the first and last column labels past the grid.
  const double left = std::max(map.y_axis.empty() ? 6 : y_label_w + 12, label_w / 2);
  const double top = map.y_axis.empty() ? 4 : 18;
  const double grid_w = cw * static_cast<double>(cols), grid_h = ch * static_cast<double>(rows);
  const double width =
      std::max(left + grid_w + std::max(8.0, label_w / 2), left + text_width(map.x_axis) + 40);
  const double height = top + grid_h + 34;

  std::string out = fmt::format(
      "<svg class=\"hm\" viewBox=\"0 0 {:.0f} {:.0f}\" "
      "width=\"{:.0f}\" role=\"img\" aria-label=\"{}\">",
      width, height, width,
      escape_markup("mismatches by " + map.x_axis +
                    (map.y_axis.empty() ? "" : " and " + map.y_axis)));
  if (!map.y_axis.empty()) {
    out += fmt::format("<text class=\"ax\" x=\"{:.1f}\" y=\"12\" text-anchor=\"end\">{}</text>",
                       left - 6, escape_markup(map.y_axis));
  }
  for (std::size_t y = 0; y < rows; ++y) {
    const double ry = top + ch * static_cast<double>(y);
    if (!map.y_axis.empty()) {
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", left - 6,
                         ry + ch / 2 + 4, escape_markup(short_label(map.y_values[y], kMaxYLabel)));
    }
    for (std::size_t x = 0; x < cols; ++x) {
      const HeatmapCell& cell = map.cells[y][x];
      const double rx = left + cw * static_cast<double>(x);
      const bool outline = cw >= 6;
      out += fmt::format(
          "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\"{}>"
          "<title>{}</title></rect>",
          rx, ry, cw, ch, mismatch_colour(cell),
          cell.ran == 0 ? " class=\"nr\"" : (outline ? " class=\"c\"" : ""),
          escape_markup(cell_title(map, y, x)));
      const std::string value = cell.ran == 0 ? "" : compact(cell.mismatched);
      if (!value.empty() && cw >= text_width(value) + 6) {
        const Bucket* b = bucket_of(cell);
        out += fmt::format(
            "<text class=\"v{}\" x=\"{:.2f}\" y=\"{:.1f}\" text-anchor=\"middle\">"
            "{}</text>",
            b && b->dark ? " dk" : "", rx + cw / 2, ry + ch / 2 + 4, value);
      }
    }
  }
  // Column labels, thinned to every step-th so none overlap; the last is kept where it fits.
  const std::size_t step =
      std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(label_w / cw)));
  const double label_y = top + grid_h + 14;
  for (std::size_t x = 0; x < cols; ++x) {
    const bool last_fits = x + 1 == cols && x % step >= (step + 1) / 2;
    if (x % step != 0 && !last_fits) continue;
    out += fmt::format("<text x=\"{:.2f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>",
                       left + cw * (static_cast<double>(x) + 0.5), label_y,
                       escape_markup(map.x_ticks[x]));
  }
  out += fmt::format(
      "<text class=\"ax\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{} "
      "\u2192</text>",
      left + grid_w / 2, label_y + 16, escape_markup(map.x_axis));
  return {out + "</svg>", width};
}

namespace {

// One strip of the dispatch picture: a value per point, and what a value means in words.
struct Strip {
  std::string label;
  std::vector<int> values;
  std::function<std::string(int)> fill;
  std::function<std::string(int)> meaning;
};

std::string point_value(const DispatchMap& map, std::size_t i) {
  if (i >= map.points.size() || !map.points[i].is_object() || !map.points[i].contains(map.axis)) {
    return "#" + std::to_string(i);
  }
  const Json& v = map.points[i].at(map.axis);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::vector<Strip> strips_of(const DispatchMap& map) {
  std::vector<Strip> strips;
  const auto class_meaning = [&map](int id) -> std::string {
    if (id < 0) return "not observed";
    for (const auto& c : map.classes) {
      if (c.id == id) return fmt::format("kernel class {}: {}", id, c.label);
    }
    return fmt::format("kernel class {}", id);
  };
  const std::string reference = map.variants.empty() ? "" : map.variants.front();
  for (std::size_t v = 0; v < map.variants.size(); ++v) {
    for (const auto& d : map.dispatch) {
      if (d.variant == map.variants[v]) {
        strips.push_back(
            {map.variants[v] + " kernels", d.class_of_point, class_colour, class_meaning});
      }
    }
    if (v == 0) continue;
    std::vector<int> bits;
    for (int rc : map.result_class_of_point) {
      const bool known = rc >= 0 && static_cast<std::size_t>(rc) < map.result_classes.size() &&
                         v < map.result_classes[static_cast<std::size_t>(rc)].groups.size();
      bits.push_back(known ? map.result_classes[static_cast<std::size_t>(rc)].groups[v] : -1);
    }
    strips.push_back({map.variants[v] + " bits", bits,
                      [](int g) -> std::string {
                        return g < 0 ? kNotRunColour : g == 0 ? kZeroColour : kDiffersColour;
                      },
                      [reference](int g) -> std::string {
                        if (g < 0) return "not run";
                        return (g == 0 ? "bits agree with " : "bits differ from ") + reference;
                      }});
  }
  const auto result_fill = [&map](int id) -> std::string {
    for (const auto& r : map.result_classes) {
      if (r.id == id) return result_class_colour(r);
    }
    return class_colour(-1);
  };
  strips.push_back({"result class", map.result_class_of_point, result_fill, [&map](int id) {
                      for (const auto& r : map.result_classes) {
                        if (r.id == id) return fmt::format("result class {}: {}", id, r.label);
                      }
                      return std::string("not observed");
                    }});
  return strips;
}

}  // namespace

std::string dispatch_svg(const DispatchMap& map) {
  const std::vector<Strip> strips = strips_of(map);
  const std::size_t points = map.points.size();
  if (points == 0) return "";
  double left = 0;
  for (const auto& s : strips) left = std::max(left, text_width(s.label));
  left += 14;
  constexpr double kStripW = 800, kRowH = 18, kGap = 7;
  const double unit = kStripW / static_cast<double>(points);
  const double grid_h = static_cast<double>(strips.size()) * (kRowH + kGap);
  const double width = left + kStripW + 24, height = grid_h + 40;
  std::string out = fmt::format(
      "<svg class=\"hm\" viewBox=\"0 0 {:.0f} {:.0f}\" "
      "width=\"{:.0f}\" role=\"img\" aria-label=\"dispatch and result classes along {}\">",
      width, height, width, escape_markup(map.axis));
  for (std::size_t s = 0; s < strips.size(); ++s) {
    const Strip& strip = strips[s];
    const double y = static_cast<double>(s) * (kRowH + kGap);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", left - 8,
                       y + kRowH / 2 + 4, escape_markup(strip.label));
    const std::size_t n = std::min(points, strip.values.size());
    for (std::size_t i = 0; i < n;) {
      std::size_t j = i;
      while (j < n && strip.values[j] == strip.values[i]) ++j;
      const std::string range =
          j - i == 1 ? point_value(map, i) : point_value(map, i) + ".." + point_value(map, j - 1);
      const std::string title =
          fmt::format("{}: {} = {} ({} point{}): {}", strip.label, map.axis, range, j - i,
                      j - i == 1 ? "" : "s", strip.meaning(strip.values[i]));
      out += fmt::format(
          "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\"{}>"
          "<title>{}</title></rect>",
          left + unit * static_cast<double>(i), y, unit * static_cast<double>(j - i), kRowH,
          strip.fill(strip.values[i]), strip.values[i] < 0 ? " class=\"nr\"" : "",
          escape_markup(title));
      i = j;
    }
  }
  // About eight ticks, the first and the last point among them.
  constexpr std::size_t kTicks = 8;
  std::set<std::size_t> ticks;
  for (std::size_t t = 0; t <= kTicks; ++t) ticks.insert(t * (points - 1) / kTicks);
  for (std::size_t at : ticks) {
    const double x = left + unit * (static_cast<double>(at) + 0.5);
    out += fmt::format(
        "<line class=\"tk\" x1=\"{0:.2f}\" x2=\"{0:.2f}\" y1=\"{1:.1f}\" "
        "y2=\"{2:.1f}\"/><text x=\"{0:.2f}\" y=\"{3:.1f}\" "
        "text-anchor=\"middle\">{4}</text>",
        x, grid_h - kGap, grid_h - 2, grid_h + 10, escape_markup(point_value(map, at)));
  }
  out += fmt::format(
      "<text class=\"ax\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{} "
      "\u2192</text>",
      left + kStripW / 2, grid_h + 28, escape_markup(map.axis));
  return out + "</svg>";
}

}  // namespace samebits
