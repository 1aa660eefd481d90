// The reviewer's HTML report, section by section: headline, the surprises, a sweep's dispatch map,
// the platform, outcomes per contract and implementation (surprises first), each contract's checks
// with heatmaps, and the drill-down. One file, no scripts, every user string escaped.
#include "reports/render/html_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "common/atomic_file.h"
#include "reports/model/outcome.h"
#include "reports/render/check_headline.h"
#include "reports/render/heatmap.h"
#include "reports/render/html_baseline.h"
#include "reports/render/html_cases.h"
#include "reports/render/html_dispatch.h"
#include "reports/render/html_parts.h"
#include "reports/render/html_style.h"
#include "reports/render/html_svg.h"
#include "reports/render/markup.h"

namespace samebits {
namespace {

// Contracts open on load when this few are in the report (a sweep, a focused run), or when they
// hold a surprise; otherwise they start collapsed under their counts.
constexpr std::size_t kOpenContracts = 3;

std::string header_html(const Report& r) {
  const std::vector<std::string>& argv = r.command;
  const std::string tool = fmt::format("{} {}", r.tool.name, r.tool.version);
  const std::string& commit = r.tool.git_commit;
  return fmt::format(
      "<header><h1>samebits report</h1><div class=\"sub\">{} on {} \u00b7 {}{} \u00b7 {} contract{}"
      "</div>{}</header>",
      escape_markup(r.created), escape_markup(r.settings.device), escape_markup(tool),
      commit.empty() ? "" : " (" + escape_markup(commit) + ")", r.contracts.size(),
      r.contracts.size() == 1 ? "" : "s",
      argv.empty() ? ""
                   : "<p class=\"sub\">command: <code>" +
                         escape_markup(fmt::format("{}", fmt::join(argv, " "))) + "</code></p>");
}

std::string headline_html(const Report& r) {
  const Summary& s = r.summary;
  const char* css = s.exit_code == kExitAsExpected   ? "o-ok"
                    : s.exit_code == kExitUnexpected ? "o-bad"
                                                     : "o-warn";
  return fmt::format(
      "<div class=\"headline {}\">exit {}: {}<span class=\"detail\">{} checks: {} as expected, {} "
      "unexpected, {} informational, {} findings, {} not judged in this subset \u00b7 {} cases: "
      "{} held, {} violated, {} skipped, {} errors{} \u00b7 {:.1f} s</span></div>",
      css, s.exit_code, escape_markup(exit_meaning(r)), s.checks, s.as_expected, s.unexpected,
      s.informational, s.findings, s.not_observed, s.cases, s.held, s.violated, s.skipped, s.errors,
      escape_markup(crash_counts(s.crashed, s.timed_out)), s.duration_s);
}

std::string platform_html(const Report& r) {
  const RunSettings& settings = r.settings;
  std::string fingerprint;
  for (const auto& [field, value] : settings.platform.fields()) {
    if (!value.empty()) {
      fingerprint +=
          fmt::format("<span class=\"k\">{}</span><span>{}</span>", field, json_html(Json(value)));
    }
  }
  if (fingerprint.empty())
    fingerprint = "<span class=\"muted\">not recorded in this report</span>";
  else
    fingerprint = "<div class=\"kv\">" + fingerprint + "</div>";

  std::string expectations = "<div class=\"kv\"><span class=\"k\">recorded platform</span><span>";
  const std::string observed = settings.observed_platform.value_or("");
  expectations += observed.empty()
                      ? "none covers this one: observed checks are reported as findings"
                      : escape_markup(observed) + ": observed checks gate against it";
  expectations += "</span>";
  if (settings.nearest_platform) {
    const NearestPlatform& near = *settings.nearest_platform;
    std::string diffs;
    for (const auto& d : near.differences) diffs += "<li>" + json_html(Json(d)) + "</li>";
    expectations += fmt::format(
        "<span class=\"k\">nearest recorded</span><span>{}<ul class=\"tight\">{}</ul></span>",
        escape_markup(near.name), diffs);
  }
  expectations += "</div>";
  return fmt::format(
      "<section id=\"platform\"><h2>Platform</h2><div class=\"cards\"><div class=\"card\"><h3>"
      "Fingerprint</h3>{}</div><div class=\"card\"><h3>Expectations</h3>{}</div></div>"
      "<details><summary>Environment (libraries, flags, variables)</summary><div class=\"body\">"
      "{}</div></details></section>",
      fingerprint, expectations, json_html(Json(r.environment)));
}

// Check outcomes counted per (contract, implementation).
struct Tally {
  std::string contract, impl;
  std::int64_t checks = 0, holds = 0, violated = 0, as_expected = 0, unexpected = 0, finding = 0,
               errored = 0, other = 0;
  int rank = 3;
};

std::string count_cell(std::int64_t n, const char* css) {
  if (n == 0) return "<td class=\"n z\">0</td>";
  return fmt::format("<td class=\"n {}\">{}</td>", css, n);
}

std::string summary_html(const Report& r) {
  std::vector<Tally> rows;
  std::map<std::pair<std::string, std::string>, std::size_t> at;
  for (const auto& g : r.checks) {
    auto [it, added] = at.emplace(std::make_pair(g.contract, g.impl), rows.size());
    if (added) rows.push_back({g.contract, g.impl});
    Tally& t = rows[it->second];
    ++t.checks;
    t.holds += g.observed == Verdict::holds;
    t.violated += g.observed == Verdict::violated;
    t.rank = std::min(t.rank, surprise_rank(g.outcome));
    if (fails_gate(g.outcome))
      ++t.unexpected;
    else if (g.outcome == Outcome::as_expected)
      ++t.as_expected;
    else if (g.outcome == Outcome::finding)
      ++t.finding;
    else if (g.outcome == Outcome::errored)
      ++t.errored;
    else
      ++t.other;
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Tally& a, const Tally& b) { return a.rank < b.rank; });
  std::string out =
      "<section id=\"summary\"><h2>Outcomes by contract and implementation</h2><p class=\"sub\">"
      "Counts of checks; surprises first. \u201cholds\u201d and \u201cviolated\u201d are what was "
      "observed, the rest set that against the expectation; \u201cother\u201d is informational, "
      "not run or not judged in this subset.</p><div class=\"scroll\"><table><tr><th>contract</th>"
      "<th>implementation</th><th class=\"n\">checks</th><th class=\"n\">holds</th><th class=\"n\">"
      "violated</th><th class=\"n\">as expected</th><th class=\"n\">unexpected</th><th class=\"n\">"
      "findings</th><th class=\"n\">errored</th><th class=\"n\">other</th></tr>";
  for (const auto& t : rows) {
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
        "<td class=\"n\">{}</td>{}{}{}{}<td class=\"n\">{}</td></tr>",
        escape_markup(t.contract), escape_markup(t.impl), t.checks, t.holds, t.violated,
        count_cell(t.as_expected, "o-ok"), count_cell(t.unexpected, "o-bad"),
        count_cell(t.finding, "o-find"), count_cell(t.errored, "o-warn"), t.other);
  }
  return out + "</table></div></section>";
}

// The check's name (with its contract, where `with_contract`), linked to its drill-down if it has
// one.
std::string check_link(const Report& r, std::size_t i, bool with_contract = true) {
  const CheckResult& g = r.checks[i];
  const std::string name = escape_markup(with_contract ? g.contract + " / " + g.check : g.check);
  return has_drilldown(g) ? fmt::format("<a href=\"#{}\">{}</a>", check_anchor(i), name) : name;
}

std::string surprises_html(const Report& r, const CaseIndex& index,
                           const std::vector<std::size_t>& order) {
  std::string rows;
  for (std::size_t i : order) {
    const CheckResult& g = r.checks[i];
    if (surprise_rank(g.outcome) > 1) continue;
    rows += fmt::format(
        "<tr><td>{}</td><td class=\"id\">{}</td><td class=\"id\">{}/{}</td><td class=\"what\">{}"
        "</td></tr>",
        outcome_pill(g.outcome), check_link(r, i), escape_markup(g.impl), escape_markup(g.device),
        escape_markup(check_headline(g, index.of(g))));
  }
  if (rows.empty()) return "";
  return "<section id=\"surprises\"><h2>Unexpected outcomes</h2><div class=\"scroll\"><table>"
         "<tr><th>outcome</th><th>check</th><th>implementation</th><th>what happened</th></tr>" +
         rows + "</table></div></section>";
}

std::string expected_text(const CheckResult& g) {
  switch (g.expected_from) {
    case ExpectationSource::none: return "none here (observed)";
    case ExpectationSource::observation:
      if (g.recorded_varying) return "varies (recorded as varying on " + g.observed_on + ")";
      return to_string(g.expected) + " (on " + g.observed_on + ")";
    case ExpectationSource::promise: return to_string(g.expected);
  }
  return "";
}

std::string heatmap_figure(const CheckResult& g, const Heatmap& map) {
  // Heatmaps wider than a grid column take the whole row rather than shrink their labels.
  constexpr double kColumnWidth = 350;
  const Svg svg = heatmap_svg(map);
  const bool wide = svg.width > kColumnWidth;
  std::string caption = fmt::format("{} of {} cases violated", g.violated, g.held + g.violated);
  if (!map.summed_over.empty()) {
    caption += "; summed over " + fmt::format("{}", fmt::join(map.summed_over, ", "));
  }
  return fmt::format(
      "<figure{}><h4>{} <span class=\"muted\">[{}/{}]</span></h4>{}<figcaption>{}"
      "</figcaption></figure>",
      wide ? " class=\"wide\"" : "", escape_markup(g.check), escape_markup(g.impl),
      escape_markup(g.device), svg.markup, escape_markup(caption));
}

std::string contract_html(const Report& r, const CaseIndex& index, const std::string& name,
                          bool open_all) {
  const auto info = std::find_if(r.contracts.begin(), r.contracts.end(),
                                 [&](const ContractInfo& c) { return c.name == name; });
  std::string rows, figures;
  std::int64_t surprises = 0, violated_checks = 0, findings = 0;
  for (std::size_t i = 0; i < r.checks.size(); ++i) {
    const CheckResult& g = r.checks[i];
    if (g.contract != name) continue;
    surprises += surprise_rank(g.outcome) <= 1;
    findings += g.outcome == Outcome::finding;
    violated_checks += g.violated > 0;
    rows += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}/{}</td>"
        "<td>{}</td></tr>",
        check_link(r, i, false), escape_markup(g.impl), escape_markup(g.device),
        escape_markup(expected_text(g)), escape_markup(to_string(g.observed)), g.violated,
        g.held + g.violated, outcome_pill(g.outcome));
    if (g.violated == 0) continue;
    if (const auto map = heatmap_of(index.of(g))) figures += heatmap_figure(g, *map);
  }
  const bool open = open_all || surprises > 0;
  std::string out = fmt::format(
      "<details{}><summary>{} <span class=\"muted\">{}</span>{}{}{}</summary><div class=\"body\">",
      open ? " open" : "", escape_markup(name),
      info != r.contracts.end() ? escape_markup(info->op) : "",
      surprises > 0 ? fmt::format(" <span class=\"pill o-bad\">{} surprising</span>", surprises)
                    : "",
      findings > 0 ? fmt::format(" <span class=\"pill o-find\">{} findings</span>", findings) : "",
      violated_checks > 0
          ? fmt::format(" <span class=\"pill o-quiet\">{} violated</span>", violated_checks)
          : std::string(" <span class=\"pill o-quiet\">none violated</span>"));
  if (info != r.contracts.end() && !info->description.empty()) {
    out += "<p class=\"sub\">" + escape_markup(info->description) + "</p>";
  }
  if (!figures.empty()) out += heatmap_legend_html() + "<div class=\"figs\">" + figures + "</div>";
  out +=
      "<div class=\"scroll\"><table><tr><th>check</th><th>implementation</th><th>device</th>"
      "<th>expected</th><th>observed</th><th class=\"n\">violated/run</th><th>outcome</th></tr>" +
      rows + "</table></div>";
  return out + "</div></details>";
}

std::string contracts_html(const Report& r, const CaseIndex& index) {
  std::vector<std::string> names;
  for (const auto& g : r.checks) {
    if (std::find(names.begin(), names.end(), g.contract) == names.end())
      names.push_back(g.contract);
  }
  std::string out =
      "<section id=\"contracts\"><h2>Contracts</h2><p class=\"sub\">Each check per "
      "implementation; heatmaps show where the bits differ, over the axes the "
      "check varies (hover a cell for its values).</p>";
  for (const auto& name : names)
    out += contract_html(r, index, name, names.size() <= kOpenContracts);
  return out + "</section>";
}

}  // namespace

std::string render_html(const Report& report, const std::string& report_path) {
  const CaseIndex index(report);
  std::vector<std::size_t> order(report.checks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return surprise_rank(report.checks[a].outcome) < surprise_rank(report.checks[b].outcome);
  });
  const std::string surprises = surprises_html(report, index, order);
  const std::string drilldown = drilldown_html(report, index, order, report_path);
  // Surprises and a sweep's map come first: what a reviewer opened the page for.
  std::string nav = "<nav class=\"toc\">";
  if (!surprises.empty()) nav += "<a href=\"#surprises\">Unexpected</a>";
  const std::string baseline =
      report.baseline_comparison ? baseline_section_html(*report.baseline_comparison) : "";
  if (!baseline.empty()) nav += "<a href=\"#baseline\">Baseline</a>";
  if (report.dispatch) nav += "<a href=\"#dispatch\">Dispatch map</a>";
  nav +=
      "<a href=\"#platform\">Platform</a><a href=\"#summary\">Outcomes</a>"
      "<a href=\"#contracts\">Contracts</a>";
  if (!drilldown.empty()) nav += "<a href=\"#cases\">Cases</a>";
  nav += "</nav>";
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
      "content=\"width=device-width, initial-scale=1\"><title>samebits report: exit {} \u00b7 {}"
      "</title><style>{}</style></head><body><main>{}{}{}{}{}{}{}{}{}{}</main></body></html>\n",
      report.summary.exit_code, escape_markup(report.created), kHtmlStyle, header_html(report),
      headline_html(report), nav, surprises, baseline,
      report.dispatch ? dispatch_section_html(*report.dispatch) : "", platform_html(report),
      summary_html(report), contracts_html(report, index), drilldown);
}

void HtmlReportWriter::do_write(const Report& report) {
  write_file_atomically(path_, render_html(report, report_path_));
}

}  // namespace samebits
