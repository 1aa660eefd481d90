// The Markdown summary: what a reviewer reads in a PR comment before opening anything else, so it
// says the verdict and the surprises, and points to the HTML and JSON reports for the rest.
#include "reports/markdown_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "reports/atomic_file.h"
#include "reports/check_headline.h"
#include "reports/dispatch_text.h"
#include "reports/outcome.h"

namespace samebits {

std::string escape_markdown(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '\n':
      case '\r': out += ' '; break;
      case '|':
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '#':
      case '~': out += '\\', out += c; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

std::string headline(const Report& r) {
  const Summary& s = r.summary;
  std::string device;
  if (r.settings.contains("device") && r.settings.at("device").is_string()) {
    device = r.settings.at("device").get<std::string>() + ", ";
  }
  return fmt::format(
      "**samebits: exit {} ({})**: {} checks: {} as expected, {} unexpected, {} informational, {} "
      "findings, {} not judged; {} cases: {} held, {} violated, {} skipped, {} errors{} ({}{:.1f} "
      "s)",
      s.exit_code, exit_meaning(r), s.checks, s.as_expected, s.unexpected, s.informational,
      s.findings, s.not_observed, s.cases, s.held, s.violated, s.skipped, s.errors,
      crash_counts(s.crashed, s.timed_out), escape_markdown(device), s.duration_s);
}

std::string nearest_platform(const Report& r) {
  if (!r.settings.contains("nearest_platform")) return "";
  const Json& near = r.settings.at("nearest_platform");
  if (!near.is_object() || !near.contains("name")) return "";
  const Json& name = near.at("name");
  std::string out = "; nearest recorded platform: " +
                    escape_markdown(name.is_string() ? name.get<std::string>() : name.dump());
  if (near.contains("differences") && near.at("differences").is_array()) {
    std::string diffs;
    for (const auto& d : near.at("differences")) {
      if (!diffs.empty()) diffs += "; ";
      diffs += d.is_string() ? d.get<std::string>() : d.dump();
    }
    if (!diffs.empty()) out += " (" + escape_markdown(diffs) + ")";
  }
  return out;
}

// Findings whose outcome differs from what the nearest recorded platform saw: what a reviewer
// moving to this machine most wants to know.
std::string differing_findings(const Report& r) {
  std::string rows;
  std::size_t n = 0;
  for (const auto& g : r.checks) {
    if (g.outcome != Outcome::finding || g.nearest_observed == Expectation::unknown) continue;
    if (to_string(g.nearest_observed) == to_string(g.observed)) continue;
    if (++n > kMarkdownRows) continue;
    rows +=
        fmt::format("| {} / {} | {} / {} | {} | {} |\n", escape_markdown(g.contract),
                    escape_markdown(g.check), escape_markdown(g.impl), escape_markdown(g.device),
                    to_string(g.observed), to_string(g.nearest_observed));
  }
  if (n == 0) return "";
  std::string out =
      "\n| finding | impl / device | here | nearest recorded |\n| --- | --- | --- | --- |\n" + rows;
  if (n > kMarkdownRows) {
    out += fmt::format("\n{} more differ; the HTML and JSON reports list them all.\n",
                       n - kMarkdownRows);
  }
  return out;
}

// With --baseline: the comparison's counts, in one line.
std::string baseline_line(const Report& r) {
  const Json& b = r.baseline_comparison;
  if (!b.is_object()) return "";
  auto count = [&](const char* key) {
    return b.contains(key) && b.at(key).is_array() ? b.at(key).size() : std::size_t{0};
  };
  const std::string name = b.contains("baseline") && b.at("baseline").is_string()
                               ? b.at("baseline").get<std::string>()
                               : std::string("the baseline");
  std::string out =
      fmt::format("\nAgainst {}: {} verdict changes, {} cases with other bits (drift)",
                  escape_markdown(name), count("verdict_changes"), count("drift"));
  if (b.contains("same_platform") && b.at("same_platform") == false) {
    out += ", recorded on another platform";
  }
  return out + ".\n";
}

}  // namespace

std::string render_markdown(const Report& report) {
  const CaseIndex index(report);
  std::string out = headline(report) + "\n\n";
  std::vector<const CheckResult*> surprises;
  for (const auto& g : report.checks) {
    if (surprise_rank(g.outcome) <= 1) surprises.push_back(&g);
  }
  std::stable_sort(surprises.begin(), surprises.end(), [](const auto* a, const auto* b) {
    return surprise_rank(a->outcome) < surprise_rank(b->outcome);
  });
  if (surprises.empty()) {
    out += "No unexpected outcomes.\n";
  } else {
    out +=
        "| outcome | contract / check | impl / device | what happened |\n"
        "| --- | --- | --- | --- |\n";
    const std::size_t shown = std::min(surprises.size(), kMarkdownRows);
    for (std::size_t i = 0; i < shown; ++i) {
      const CheckResult& g = *surprises[i];
      out += fmt::format("| {} | {} / {} | {} / {} | {} |\n", outcome_label(g.outcome),
                         escape_markdown(g.contract), escape_markdown(g.check),
                         escape_markdown(g.impl), escape_markdown(g.device),
                         escape_markdown(check_headline(g, index.of(g))));
    }
    if (surprises.size() > shown) {
      out += fmt::format(
          "\n{} more unexpected or errored outcomes are left out here; the HTML and "
          "JSON reports list them all.\n",
          surprises.size() - shown);
    }
  }
  if (report.summary.findings > 0) {
    out += fmt::format(
        "\n{} findings (not gating): observed implementations on a platform no "
        "recorded one covers{}.\n",
        report.summary.findings, nearest_platform(report));
    out += differing_findings(report);
  }
  out += baseline_line(report);
  if (report.dispatch) {
    const auto findings = dispatch_findings(*report.dispatch);
    constexpr std::size_t kDispatchLines = 5;
    out += fmt::format("\nDispatch map of {} along {}:\n", escape_markdown(report.dispatch->op),
                       escape_markdown(report.dispatch->axis));
    for (std::size_t i = 0; i < findings.size() && i < kDispatchLines; ++i) {
      out += "- " + escape_markdown(findings[i]) + "\n";
    }
    if (findings.size() > kDispatchLines) {
      out += fmt::format("- and {} more in the HTML report\n", findings.size() - kDispatchLines);
    }
  }
  return out;
}

void MarkdownReportWriter::do_write(const Report& report) {
  write_file_atomically(path_, render_markdown(report));
}

}  // namespace samebits
