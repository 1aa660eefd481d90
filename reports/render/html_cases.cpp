// The drill-down of the HTML report: collapsed <details> per check and per case, so the page stays
// short until a reviewer opens what they need; each case ends with the command that reruns it.
#include "reports/render/html_cases.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reports/model/outcome.h"
#include "reports/render/html_parts.h"
#include "reports/render/markup.h"

namespace samebits {

std::string check_anchor(std::size_t check_index) {
  return fmt::format("check-{}", check_index);
}

bool has_drilldown(const CheckResult& check) {
  return check.violated > 0 || check.errors + check.crashed + check.timed_out > 0;
}

namespace {

std::string mismatches_table(const OutputResult& o) {
  const DiffStats& d = o.diff;
  std::string out = fmt::format(
      "<h4>{}: {} [{}], {}: {} of {} elements differ{}</h4>", escape_markup(o.name),
      escape_markup(d.dtype), fmt::join(d.shape, ", "), escape_markup(to_string(d.mode)),
      d.mismatched, d.numel, d.max_ulp ? fmt::format(", max {} ULP", *d.max_ulp) : "");
  if (!d.tolerance.empty()) {
    out += "<p class=\"sub\">tolerance: " + escape_markup(d.tolerance) + "</p>";
  }
  if (d.first_mismatches.empty()) return out;
  out +=
      "<div class=\"scroll\"><table class=\"mono\"><tr><th>index</th><th class=\"n\">baseline"
      "</th><th class=\"n\">variant</th><th>baseline bits</th><th>variant bits</th>"
      "<th class=\"n\">ULP</th></tr>";
  for (const auto& m : d.first_mismatches) {
    out += fmt::format(
        "<tr><td>[{}]</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td>"
        "<td class=\"n\">{}</td></tr>",
        fmt::join(m.index, ", "), m.baseline, m.variant, escape_markup(m.baseline_bits),
        escape_markup(m.variant_bits), m.ulp ? std::to_string(*m.ulp) : "\u2014");
  }
  if (d.mismatched > static_cast<std::int64_t>(d.first_mismatches.size())) {
    out += fmt::format("<tr><td colspan=\"6\" class=\"muted\">the first {} of {} shown</td></tr>",
                       d.first_mismatches.size(), d.mismatched);
  }
  return out + "</table></div>";
}

std::string case_html(const CaseResult& c, const std::string& report_path) {
  std::string out = fmt::format(
      "<details class=\"case\"><summary><code>{}</code> \u2014 {}: {}</summary><div class=\"body\">"
      "<div class=\"kv\"><span class=\"k\">params</span><span><code>{}</code></span>"
      "<span class=\"k\">baseline</span><span>{}</span><span class=\"k\">variant</span>"
      "<span>{}</span><span class=\"k\">seed</span><span><code>{}</code></span></div>",
      escape_markup(c.id), escape_markup(to_string(c.verdict)), escape_markup(case_difference(c)),
      escape_markup(params_text(c.params)), escape_markup(c.baseline), escape_markup(c.variant),
      c.seed);
  if (did_not_run(c.verdict)) out += "<pre>" + escape_markup(c.reason) + "</pre>";
  for (const auto& o : c.outputs) {
    if (o.diff.mismatched > 0) out += mismatches_table(o);
  }
  out += "<p>Rerun:</p><pre>" + escape_markup(rerun_command(report_path, c.id)) + "</pre>";
  return out + "</div></details>";
}

// "4 violated", "1 errored", "3 violated, 1 errored".
std::string counts_text(const CheckResult& g) {
  std::string out = g.violated > 0 ? fmt::format("{} violated", g.violated) : "";
  if (g.errors > 0) out += fmt::format("{}{} errored", out.empty() ? "" : ", ", g.errors);
  if (g.crashed > 0) out += fmt::format("{}{} crashed", out.empty() ? "" : ", ", g.crashed);
  if (g.timed_out > 0) out += fmt::format("{}{} timed out", out.empty() ? "" : ", ", g.timed_out);
  return out;
}

}  // namespace

std::string drilldown_html(const Report& report, const CaseIndex& index,
                           const std::vector<std::size_t>& order, const std::string& report_path) {
  std::string body;
  for (std::size_t i : order) {
    const CheckResult& g = report.checks[i];
    if (!has_drilldown(g)) continue;
    std::string cases;
    std::size_t shown = 0, left_out = 0;
    for (const CaseResult* c : index.of(g)) {
      if (c->verdict != Verdict::violated && !did_not_run(c->verdict)) continue;
      if (shown == kDrilldownCases) {
        ++left_out;
        continue;
      }
      cases += case_html(*c, report_path);
      ++shown;
    }
    if (left_out > 0) {
      cases += fmt::format(
          "<p class=\"muted\">{} more violated or errored cases of this check "
          "are left out here; the JSON report holds them all.</p>",
          left_out);
    }
    body += fmt::format(
        "<details id=\"{}\"{}><summary>{} / {} <span class=\"muted\">[{}/{}]</span>{} "
        "<span class=\"muted\">{}</span></summary><div class=\"body\">"
        "<p>{}</p>{}</div></details>",
        check_anchor(i), fails_gate(g.outcome) ? " open" : "", escape_markup(g.contract),
        escape_markup(g.check), escape_markup(g.impl), escape_markup(g.device),
        outcome_pill(g.outcome), counts_text(g), escape_markup(check_headline(g, index.of(g))),
        cases);
  }
  if (body.empty()) return "";
  return "<section id=\"cases\"><h2>Violated and errored cases</h2><p class=\"sub\">Per check the "
         "first " +
         std::to_string(kDrilldownCases) +
         " violated or errored cases, each with its first mismatching elements and the command "
         "that reruns it from this report's JSON.</p>" +
         body + "</section>";
}

}  // namespace samebits
