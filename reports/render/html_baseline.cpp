// The baseline section of the HTML report, drawn from the comparison the JSON report holds (so
// `report render` of a report written earlier draws the same section as the run did).
#include "reports/render/html_baseline.h"

#include <fmt/format.h>

#include "reports/render/markup.h"

namespace samebits {
namespace {

constexpr std::size_t kDriftRows = 20;

// A table of drifted cases (the first kDriftRows), headed `heading`; "" for none.
std::string drift_table(const char* heading, const std::vector<CaseDrift>& drift) {
  if (drift.empty()) return "";
  std::string out = std::string("<table><thead><tr><th>") + heading +
                    "</th><th>outputs</th><th>verdict</th></tr></thead><tbody>";
  for (std::size_t i = 0; i < drift.size() && i < kDriftRows; ++i) {
    const CaseDrift& d = drift[i];
    std::string outputs;
    for (const auto& o : d.outputs) outputs += (outputs.empty() ? "" : ", ") + escape_markup(o);
    const std::string before = to_string(d.before), after = to_string(d.after);
    out += "<tr><td><code>" + escape_markup(d.id) + "</code></td><td>" + outputs + "</td><td>" +
           (before == after ? before : before + " \u2192 " + after) + "</td></tr>";
  }
  out += "</tbody></table>";
  if (drift.size() > kDriftRows) {
    out += fmt::format("<p class=\"sub\">and {} more in the JSON report</p>",
                       drift.size() - kDriftRows);
  }
  return out;
}

}  // namespace

std::string baseline_section_html(const RunComparison& c) {
  const auto& changes = c.verdict_changes;
  const auto& drift = c.drift;
  const auto& also = c.matched_also_seen;
  const auto& varied = c.varied;
  std::string out =
      "<section id=\"baseline\"><h2>Against the baseline</h2><p>Compared with <code>" +
      escape_markup(c.baseline_file) + "</code> (" + escape_markup(c.before) + "): ";
  if (c.platform_differences.empty()) {
    out += "recorded on this platform.";
  } else {
    std::string diffs;
    for (const auto& d : c.platform_differences)
      diffs += (diffs.empty() ? "" : "; ") + escape_markup(d);
    out += "recorded on another platform (" + diffs + "): expect drift.";
  }
  out += fmt::format(
      " {} checks compared: <b>{} verdict changes</b> (these gate); {} cases "
      "compared: <b>{} drifted</b> (other bits, the same verdict or not; these "
      "gate with --fail-on-drift){}{}.</p>",
      c.checks_compared, changes.size(), c.cases_compared, drift.size(),
      also.empty() ? ""
                   : fmt::format("; {} matched bits the baseline also saw in "
                                 "another run (known to vary run to run)",
                                 also.size()),
      varied.empty() ? ""
                     : fmt::format("; {} other cases drifted that the baseline marks as varying "
                                   "from run to run (reported, not gating)",
                                   varied.size()));
  if (!changes.empty()) {
    out += "<table><thead><tr><th>check</th><th>before</th><th>now</th></tr></thead><tbody>";
    for (const auto& v : changes) {
      out += "<tr class=\"o-bad\"><td>" + escape_markup(v.check) + "</td><td>" +
             to_string(v.before) + "</td><td>" + to_string(v.after) + "</td></tr>";
    }
    out += "</tbody></table>";
  }
  if (!c.checks_varying.empty()) {
    out += fmt::format(
        "<p>{} checks the baseline records as varying (seen both ways on its platform: reported, "
        "not compared):",
        c.checks_varying.size());
    for (const auto& key : c.checks_varying) out += " <code>" + escape_markup(key) + "</code>";
    out += ".</p>";
  }
  out += drift_table("drifted case", drift) + drift_table("varying case, drifted", varied);
  return out + "</section>";
}

}  // namespace samebits
