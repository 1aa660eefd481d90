// A sweep's dispatch map for reviewers: the picture first (html_svg.h), then the legends that name
// each colour, the rules drawing each border, and the sentences dispatch_findings() gives.
#include "reports/render/html_dispatch.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reports/render/dispatch_text.h"
#include "reports/render/html_svg.h"
#include "reports/render/markup.h"

namespace samebits {
namespace {

std::string swatch(const std::string& fill) {
  return fmt::format("<span class=\"sw\" style=\"background:{}\"></span>", fill);
}

std::string rule_html(const Rule& rule) {
  if (rule.text.empty()) return "<span class=\"muted\">\u2014</span>";
  std::string out = "<code>" + escape_markup(rule.text) + "</code>";
  if (!rule.exact && rule.matched > 0) {
    out = fmt::format("mostly {} ({} of {} points fit)", out, rule.matched, rule.considered);
  }
  if (!rule.exact && rule.matched == 0) out = "no rule of up to two terms";
  if (!rule.exact && !rule.points.empty()) out += ": at " + escape_markup(rule.points);
  return out;
}

std::string classes_table(const DispatchMap& map) {
  if (map.classes.empty()) {
    return "<p class=\"muted\">Kernels were not captured (a CPU run, or capture off): result "
           "classes only.</p>";
  }
  std::string out =
      "<h3>Kernel classes</h3><div class=\"scroll\"><table><tr><th "
      "class=\"n\">class</th><th>kernels</th>"
      "<th class=\"n\">observations</th></tr>";
  for (const auto& c : map.classes) {
    out += fmt::format(
        "<tr><td class=\"n\">{}{}</td><td><code>{}</code></td><td class=\"n\">{}"
        "</td></tr>",
        swatch(class_colour(c.id)), c.id, escape_markup(c.label), c.observations);
  }
  out += "</table></div>";
  std::string rules;
  for (const auto& d : map.dispatch) {
    for (const auto& [id, rule] : d.class_rules) {
      rules += fmt::format("<tr><td>{}</td><td class=\"n\">{}{}</td><td>{}</td></tr>",
                           escape_markup(d.variant), swatch(class_colour(id)), id, rule_html(rule));
    }
  }
  if (!rules.empty()) {
    out +=
        "<h3>Where each kernel class runs</h3><div class=\"scroll\"><table><tr><th>variant"
        "</th><th class=\"n\">class</th><th>rule</th></tr>" +
        rules + "</table></div>";
  }
  return out;
}

std::string comparisons_table(const DispatchMap& map) {
  if (map.results.empty()) return "";
  std::string out =
      "<h3>Bits against the reference variant</h3><div class=\"scroll\"><table><tr><th>variant"
      "</th><th class=\"n\">bits differ</th><th>where</th><th class=\"n\">kernels differ</th>"
      "<th>where</th><th>relation</th></tr>";
  for (const auto& r : map.results) {
    const bool captured = !r.where_kernels_differ.text.empty();
    out += fmt::format(
        "<tr><td>{} vs {}</td><td class=\"n\">{}/{}</td><td>{}</td><td class=\"n\">{}</td>"
        "<td>{}</td><td>{}</td></tr>",
        escape_markup(r.variant), escape_markup(r.reference), r.differing_points, r.points,
        rule_html(r.where_bits_differ),
        captured ? fmt::format("{}/{}", r.kernel_differing_points, r.points) : "\u2014",
        rule_html(r.where_kernels_differ), escape_markup(r.relation));
  }
  return out + "</table></div>";
}

std::string result_classes_table(const DispatchMap& map) {
  std::string out =
      "<h3>Result classes</h3><div class=\"scroll\"><table><tr><th class=\"n\">class</th><th>which "
      "variants"
      "' bits differ from the reference</th><th class=\"n\">points</th><th>rule</th></tr>";
  for (const auto& r : map.result_classes) {
    out += fmt::format(
        "<tr><td class=\"n\">{}{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td>"
        "</tr>",
        swatch(result_class_colour(r)), r.id, escape_markup(r.label), r.points,
        map.result_classes.size() > 1 ? rule_html(r.rule) : "all points");
  }
  return out + "</table></div>";
}

}  // namespace

std::string dispatch_section_html(const DispatchMap& map) {
  std::string out = fmt::format(
      "<section id=\"dispatch\"><h2>Dispatch map: {} ({}) along {}</h2>"
      "<p class=\"sub\">{} points; variants {}; the first is the reference. Hover a strip for "
      "the points and class it covers.</p>",
      escape_markup(map.op), escape_markup(map.impl), escape_markup(map.axis), map.points.size(),
      escape_markup(fmt::format("{}", fmt::join(map.variants, ", "))));
  if (map.points.empty()) return out + "<p class=\"muted\">No points.</p></section>";
  out += "<figure class=\"wide\">" + dispatch_svg(map) + "</figure>";
  if (map.variants.size() > 1) {
    out += fmt::format(
        "<div class=\"legend\"><span class=\"lt\">bits strips:</span>{}agree with {}{}differ{}not "
        "run</div>",
        swatch(kZeroColour), escape_markup(map.variants.empty() ? "" : map.variants.front()),
        swatch(kDiffersColour), swatch(kNotRunColour));
  }
  const std::vector<std::string> findings = dispatch_findings(map);
  if (!findings.empty()) {
    out += "<h3>Findings</h3><ul class=\"tight\">";
    for (const auto& f : findings) out += "<li>" + escape_markup(f) + "</li>";
    out += "</ul>";
  }
  out += classes_table(map) + comparisons_table(map) + result_classes_table(map);
  return out + "</section>";
}

}  // namespace samebits
