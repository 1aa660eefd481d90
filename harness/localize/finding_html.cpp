// A Finding as one self-contained HTML page (finding.h): an SVG strip of every op along the model,
// the first divergence outlined, later ops coloured by their worst ULP distance; no scripts.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "harness/localize/finding.h"

namespace samebits::localize {
namespace {

constexpr std::size_t kPerRow = 100;  // op cells per strip row
constexpr int kCell = 9, kRowHeight = 22;
constexpr std::size_t kListed = 300;  // timeline rows listed in the table

// Element text and attribute values (harness/ sits beside reports/render/, whose escape_markup it
// may not include): & < > " ' as references.
std::string esc(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  }
  return out;
}

// Equal green, not comparable grey, unmatched white; differing ops from yellow (1 ULP) to dark red
// (2^16 ULP and beyond), purple where no ULP distance applies (NaN, digests).
std::string colour(const OpComparison& c) {
  switch (c.status) {
    case OpStatus::equal: return "#9fd49f";
    case OpStatus::not_comparable: return "#d9d9d9";
    case OpStatus::unmatched: return "#ffffff";
    case OpStatus::differs: break;
  }
  if (!c.max_ulp) return "#7b3294";
  const double t = std::min(1.0, std::log2(static_cast<double>(*c.max_ulp) + 1) / 16);
  const int g = static_cast<int>(220 * (1 - t)), r = static_cast<int>(255 - 90 * t);
  return fmt::format("#{:02x}{:02x}20", r, g);
}

const OpRecord& op_of(const Finding& f, const OpComparison& c) {
  return c.b ? f.b.recording.ops[*c.b] : f.a.recording.ops[*c.a];
}

std::string describe(const OpComparison& c) {
  std::string s = to_string(c.status);
  if (c.status == OpStatus::differs)
    s += c.max_ulp ? fmt::format(", max {} ULP, {} elements", *c.max_ulp, c.mismatched)
                   : ", no ULP distance";
  return c.note.empty() ? s : s + " (" + c.note + ")";
}

std::string strip(const Finding& f) {
  const auto& ops = f.result.ops;
  const std::size_t rows = (ops.size() + kPerRow - 1) / kPerRow;
  std::string svg =
      fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\">\n",
                  kPerRow * kCell + 2, rows * kRowHeight + 4);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const OpRecord& op = op_of(f, ops[i]);
    const bool first = f.result.first && *f.result.first == i;
    const std::size_t x = (i % kPerRow) * kCell + 1, y = (i / kPerRow) * kRowHeight + 2;
    svg += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"{}\" "
        "stroke-width=\"{}\"><title>{}: {} in {}: {}</title></rect>\n",
        x, y + (first ? 0 : 2), kCell - 1, kRowHeight - (first ? 2 : 6), colour(ops[i]),
        first ? "#000" : "#888", first ? 2 : 0.3, i, esc(full_name(op)), esc(op.region),
        esc(describe(ops[i])));
  }
  return svg + "</svg>\n";
}

std::string side_table(const Finding& f) {
  const Localization& l = f.result;
  const OpComparison& c = l.ops[*l.first];
  std::string out = "<table><tr><th></th>";
  for (const Side* s : {&f.a, &f.b}) out += "<th>" + esc(s->name) + "</th>";
  out += "</tr>\n";
  const auto row = [&](const char* label, const auto& cell) {
    out += std::string("<tr><th>") + label + "</th><td>" + cell(f.a.recording.ops[*c.a], f.a) +
           "</td><td>" + cell(f.b.recording.ops[*c.b], f.b) + "</td></tr>\n";
  };
  row("op", [](const OpRecord& op, const Side&) { return esc(full_name(op)); });
  row("schema",
      [](const OpRecord& op, const Side&) { return "<code>" + esc(op.schema) + "</code>"; });
  row("region", [](const OpRecord& op, const Side&) { return esc(op.region); });
  row("inputs", [](const OpRecord& op, const Side&) {
    std::string s;
    for (const auto& m : op.inputs)
      s += esc(fmt::format("{} [{}] strides [{}] {}", m.dtype, fmt::join(m.shape, ", "),
                           fmt::join(m.strides, ", "), m.device)) +
           "<br>";
    return s;
  });
  row("outputs", [](const OpRecord& op, const Side&) {
    std::string s;
    for (const auto& o : op.outputs)
      s += esc(fmt::format("{} [{}] strides [{}]; item rows {}", o.meta.dtype,
                           fmt::join(o.meta.shape, ", "), fmt::join(o.meta.strides, ", "),
                           o.item.rows.defined()
                               ? fmt::format("[{}]", fmt::join(o.item.rows.sizes(), ", "))
                               : o.item.not_kept)) +
           "<br>";
    return s;
  });
  row("calls", [](const OpRecord& op, const Side& s) {
    std::string k;
    for (const auto i : calls(s.recording, static_cast<std::size_t>(op.ordinal)))
      k += esc(full_name(s.recording.ops[i])) + " ";
    return k;
  });
  row("kernels", [](const OpRecord& op, const Side& s) {
    if (!s.recording.kernels_captured) return esc(s.recording.kernels_note);
    std::string k;
    for (const auto& launch : kernels_of(s.recording, static_cast<std::size_t>(op.ordinal)))
      k += "<code>" + esc(launch.name) + "</code><br>";
    return k.empty() ? std::string("none") : k;
  });
  row("stack", [](const OpRecord& op, const Side&) {
    return op.stack.empty() ? std::string("(no context hook: a C++ run)")
                            : "<pre>" + esc(op.stack) + "</pre>";
  });
  return out + "</table>\n";
}

std::string histogram(const DiffStats& d) {
  std::int64_t most = 1;
  for (const auto& [label, n] : d.ulp_histogram) most = std::max(most, n);
  std::string out = "<table class=\"hist\">";
  for (const auto& [label, n] : d.ulp_histogram)
    out += fmt::format(
        "<tr><th>{}</th><td><svg width=\"300\" height=\"12\"><rect width=\"{}\" "
        "height=\"12\" fill=\"#c0392b\"/></svg> {}</td></tr>",
        esc(label), 300 * n / most, n);
  out += fmt::format("<tr><th>NaN/inf</th><td>{}</td></tr></table>\n", d.nonfinite_mismatches);
  return out;
}

}  // namespace

std::string finding_html(const Finding& f) {
  const Localization& l = f.result;
  std::string out =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>samebits localize</title>\n"
      "<style>body{font-family:sans-serif;margin:1.5em;color:#222}td,th{border:1px solid #ccc;"
      "padding:2px 6px;text-align:left;vertical-align:top;font-size:13px}table{border-collapse:"
      "collapse;margin:.5em "
      "0}code,pre{font-size:12px;word-break:break-all}.first{background:#fde2e2}</style></head>"
      "<body>\n";
  out += fmt::format("<h1>localize: {} vs {}: {}</h1>\n<p><code>{}</code></p>\n", esc(f.a.name),
                     esc(f.b.name), esc(verdict(f)), esc(f.subject.dump()));
  out += fmt::format(
      "<p>{} ops along the model: {} equal, {} differ, {} not comparable, {} unmatched. Green "
      "equal, grey not comparable, white unmatched; differing ops yellow (1 ULP) to dark red "
      "(2<sup>16</sup> ULP), purple without a ULP distance; the first divergence outlined. Hover "
      "a cell for its op.</p>\n",
      l.ops.size(), l.equal, l.differs, l.not_comparable, l.unmatched_a + l.unmatched_b);
  out += strip(f);
  if (l.first) {
    const OpComparison& c = l.ops[*l.first];
    out += fmt::format("<h2>First divergence: op {}, {} in {}</h2>\n", *l.first,
                       esc(full_name(op_of(f, c))), esc(op_of(f, c).region));
    out += side_table(f);
    if (l.first_diff) out += histogram(*l.first_diff);
    if (f.rerun) out += fmt::format("<p><code>{}</code></p>\n", esc(rerun_line(*f.rerun)));
    out +=
        "<h2>Timeline from the first divergence</h2>\n<table><tr><th>#</th><th>op</th>"
        "<th>region</th><th>status</th></tr>\n";
    for (std::size_t i = *l.first; i < l.ops.size() && i < *l.first + kListed; ++i) {
      const OpRecord& op = op_of(f, l.ops[i]);
      out += fmt::format(
          "<tr{}><td>{}</td><td>{}</td><td>{}</td><td><span style=\"background:{}\">&nbsp;&nbsp;"
          "</span> {}</td></tr>\n",
          i == *l.first ? " class=\"first\"" : "", i, esc(full_name(op)), esc(op.region),
          colour(l.ops[i]), esc(describe(l.ops[i])));
    }
    out += "</table>\n";
  }
  for (const auto& u : f.follow_ups)
    out += fmt::format("<p>With samebits {} ({}): {}</p>\n", esc(u.replaced), esc(u.mix),
                       esc(!u.first_op ? std::string("the divergence disappears")
                                       : fmt::format("the first divergence {} to {} in {}",
                                                     u.moved ? "moves on" : "stays at", *u.first_op,
                                                     *u.first_region)));
  out +=
      fmt::format("<p>Recording: {:.1f} ms for the {} run{}.</p>\n</body></html>\n",
                  f.b.recording.wall_ms, esc(f.b.name),
                  f.plain_ms ? fmt::format(", {:.1f} ms without the recorder", *f.plain_ms) : "");
  return out;
}

}  // namespace samebits::localize
