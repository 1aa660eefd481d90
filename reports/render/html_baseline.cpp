// The baseline section of the HTML report, drawn from the comparison the JSON report holds (so
// `report render` of a report written earlier draws the same section as the run did).
#include "reports/render/html_baseline.h"

#include <fmt/format.h>

#include "reports/render/markup.h"

namespace samebits {
namespace {

constexpr std::size_t kDriftRows = 20;

std::string text(const Json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return "";
  const Json& v = j.at(key);
  return escape_markup(v.is_string() ? v.get<std::string>() : v.dump());
}

const Json& array_at(const Json& j, const char* key) {
  static const Json kEmpty = Json::array();
  return j.contains(key) && j.at(key).is_array() ? j.at(key) : kEmpty;
}

// A table of drifted cases (the first kDriftRows), headed `heading`; "" for none.
std::string drift_table(const char* heading, const Json& drift) {
  if (drift.empty()) return "";
  std::string out = std::string("<table><thead><tr><th>") + heading +
                    "</th><th>outputs</th><th>verdict</th></tr></thead><tbody>";
  for (std::size_t i = 0; i < drift.size() && i < kDriftRows; ++i) {
    const Json& d = drift[i];
    std::string outputs;
    for (const auto& o : array_at(d, "outputs")) {
      outputs += (outputs.empty() ? "" : ", ") +
                 escape_markup(o.is_string() ? o.get<std::string>() : o.dump());
    }
    const std::string before = text(d, "before"), after = text(d, "after");
    out += "<tr><td><code>" + text(d, "id") + "</code></td><td>" + outputs + "</td><td>" +
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

std::string baseline_section_html(const Json& c) {
  if (!c.is_object()) return "";
  const Json& changes = array_at(c, "verdict_changes");
  const Json& drift = array_at(c, "drift");
  const Json& also = array_at(c, "matched_also_seen");
  const Json& varied = array_at(c, "varied");
  std::string out =
      "<section id=\"baseline\"><h2>Against the baseline</h2><p>Compared with <code>" +
      text(c, "baseline") + "</code> (" + text(c, "before") + "): ";
  if (c.value("same_platform", true)) {
    out += "recorded on this platform.";
  } else {
    std::string diffs;
    for (const auto& d : array_at(c, "platform_differences")) {
      diffs += (diffs.empty() ? "" : "; ") +
               escape_markup(d.is_string() ? d.get<std::string>() : d.dump());
    }
    out += "recorded on another platform (" + diffs + "): expect drift.";
  }
  out += fmt::format(
      " {} checks compared: <b>{} verdict changes</b> (these gate); {} cases "
      "compared: <b>{} drifted</b> (other bits, the same verdict or not; these "
      "gate with --fail-on-drift){}{}.</p>",
      text(c, "checks_compared"), changes.size(), text(c, "cases_compared"), drift.size(),
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
      out += "<tr class=\"o-bad\"><td>" + text(v, "check") + "</td><td>" + text(v, "before") +
             "</td><td>" + text(v, "after") + "</td></tr>";
    }
    out += "</tbody></table>";
  }
  out += drift_table("drifted case", drift) + drift_table("varying case, drifted", varied);
  return out + "</section>";
}

}  // namespace samebits
