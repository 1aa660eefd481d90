// The Markdown summary: what a reviewer reads in a PR comment before opening anything else, so it
// says the verdict and the surprises, and points to the HTML and JSON reports for the rest.
#include "reports/render/markdown_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "common/atomic_file.h"
#include "reports/model/outcome.h"
#include "reports/render/check_headline.h"
#include "reports/render/dispatch_text.h"
#include "reports/render/markup.h"
#include "reports/render/recap.h"

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
  const std::string device = r.settings.device.empty() ? "" : r.settings.device + ", ";
  return fmt::format(
      "**samebits: exit {} ({})**: {} checks: {} as expected, {} unexpected, {} informational, {} "
      "findings, {} not judged; {} cases: {} held, {} violated, {} skipped, {} errors{} ({}{:.1f} "
      "s)",
      s.exit_code, exit_meaning(r), s.checks, s.as_expected, s.unexpected, s.informational,
      s.findings, s.not_observed, s.cases, s.held, s.violated, s.skipped, s.errors,
      crash_counts(s.crashed, s.timed_out), escape_markdown(device), s.duration_s);
}

std::string nearest_platform(const Report& r) {
  if (!r.settings.nearest_platform) return "";
  const NearestPlatform& near = *r.settings.nearest_platform;
  std::string out = "; nearest recorded platform: " + escape_markdown(near.name);
  const std::string diffs = fmt::format("{}", fmt::join(near.differences, "; "));
  if (!diffs.empty()) out += " (" + escape_markdown(diffs) + ")";
  return out;
}

// Findings whose outcome differs from what the nearest recorded platform saw: what a reviewer
// moving to this machine most wants to know.
std::string differing_findings(const Report& r) {
  std::string rows;
  std::size_t n = 0;
  for (const auto& g : r.checks) {
    const std::string there = nearest_difference(g);
    if (there.empty() || ++n > kMarkdownRows) continue;
    rows += fmt::format("| {} / {} | {} / {} | {} | {} |\n", escape_markdown(g.contract),
                        escape_markdown(g.check), escape_markdown(g.impl),
                        escape_markdown(g.device), to_string(g.observed), there);
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

// The checks this platform's recording marks as varying: informational, so in no table above;
// listed so that a violation of one reads as the chance it is there, not as a check nothing judged.
std::string varying_checks(const Report& r, const CaseIndex& index) {
  std::string rows;
  std::size_t n = 0;
  for (const auto& g : r.checks) {
    if (varying_note(g).empty()) continue;
    ++n;
    rows += fmt::format("- {} / {} ({} / {}): {}\n", escape_markdown(g.contract),
                        escape_markdown(g.check), escape_markdown(g.impl),
                        escape_markdown(g.device), escape_markdown(check_headline(g, index.of(g))));
  }
  if (n == 0) return "";
  return fmt::format(
      "\n{} checks recorded as varying on this platform (seen both ways there: "
      "reported, never gating):\n\n{}",
      n, rows);
}

// With --baseline: the comparison's counts, in one line.
std::string baseline_line(const Report& r) {
  if (!r.baseline_comparison) return "";
  const RunComparison& b = *r.baseline_comparison;
  const std::string name = b.baseline_file.empty() ? "the baseline" : b.baseline_file;
  std::string out =
      fmt::format("\nAgainst {}: {} verdict changes, {} cases with other bits (drift)",
                  escape_markdown(name), b.verdict_changes.size(), b.drift.size());
  if (!b.varied.empty()) {
    out +=
        fmt::format(", {} more in cases that vary from run to run (not gating)", b.varied.size());
  }
  if (!b.checks_varying.empty()) {
    out += fmt::format(", {} checks recorded as varying there (seen both ways: not compared)",
                       b.checks_varying.size());
  }
  if (!b.platform_differences.empty()) out += ", recorded on another platform";
  return out + ".\n";
}

// Text under GitHub's comment limit: pieces go in while they fit, keeping `reserve` for the
// closers and the note of what was left out; a piece that does not fit is counted, and so is
// every later one (so what is shown is a prefix, and the count is exact).
class CappedText {
 public:
  explicit CappedText(std::size_t cap) : cap_(cap) {}
  bool add(const std::string& piece) {
    if (full_ || out_.size() + piece.size() + kReserve > cap_) {
      full_ = true;
      ++left_out_;
      return false;
    }
    out_ += piece;
    return true;
  }
  // Closers of what was opened (</details>): always fit, inside the reserve.
  void close(const std::string& piece) { out_ += piece; }
  std::string finish() {
    if (left_out_ > 0) {
      out_ += fmt::format(
          "\n{} more rows and entries are left out to stay under GitHub's {}-character comment "
          "limit; the HTML and JSON reports list them all.\n",
          left_out_, kMarkdownLimit);
    }
    return std::move(out_);
  }

 private:
  static constexpr std::size_t kReserve = 1024;
  std::size_t cap_;
  std::string out_;
  bool full_ = false;
  std::size_t left_out_ = 0;
};

// A recap entry's cases as an HTML list (the <details> block is HTML throughout, so GitHub renders
// it as written), each with its difference and rerun command, every string escaped.
std::string case_items(const RecapEntry& e, bool drift) {
  std::string out = "<ul>";
  for (std::size_t i = 0; i < e.cases.size() && i < kCasesShown; ++i) {
    const RecapCase& c = e.cases[i];
    out += "<li><code>" + escape_markup(c.id) + "</code>" +
           (drift ? "" : ": " + escape_markup(c.difference)) + "<pre>" + escape_markup(c.rerun) +
           "</pre></li>";
  }
  if (e.cases.size() > kCasesShown) {
    out += fmt::format("<li>and {} more cases (<code>samebits show</code> lists them)</li>",
                       e.cases.size() - kCasesShown);
  }
  return out + "</ul>";
}

// One <details> per recap entry of `kind`, under `heading`.
void add_details(CappedText& out, const Recap& recap, RecapKind kind, const std::string& heading) {
  const std::size_t n = recap.count(kind);
  if (n == 0) return;
  if (!out.add(fmt::format("\n**{}** ({})\n\n", heading, n))) return;
  const bool drift = kind == RecapKind::drift || kind == RecapKind::varied;
  for (const auto& e : recap.entries) {
    if (e.kind != kind) continue;
    out.add(fmt::format("<details><summary>{}: {}</summary>{}</details>\n",
                        escape_markup(e.subject), escape_markup(e.summary), case_items(e, drift)));
  }
}

}  // namespace

std::string render_markdown(const Report& report, const std::string& report_path) {
  const CaseIndex index(report);
  const Recap recap = recap_of(report, report_path);
  CappedText out(kMarkdownLimit);
  out.add(headline(report) + "\n\n");
  std::vector<const CheckResult*> surprises;
  for (const auto& g : report.checks) {
    if (surprise_rank(g.outcome) <= 1) surprises.push_back(&g);
  }
  std::stable_sort(surprises.begin(), surprises.end(), [](const auto* a, const auto* b) {
    return surprise_rank(a->outcome) < surprise_rank(b->outcome);
  });
  if (surprises.empty()) {
    out.add("No unexpected outcomes.\n");
  } else {
    out.add(
        "| outcome | contract / check | impl / device | what happened |\n"
        "| --- | --- | --- | --- |\n");
    for (const CheckResult* g : surprises) {
      out.add(fmt::format("| {} | {} / {} | {} / {} | {} |\n", outcome_label(g->outcome),
                          escape_markdown(g->contract), escape_markdown(g->check),
                          escape_markdown(g->impl), escape_markdown(g->device),
                          escape_markdown(check_headline(*g, index.of(*g)))));
    }
  }
  add_details(out, recap, RecapKind::unexpected, "Unexpected outcomes: cases and rerun commands");
  add_details(out, recap, RecapKind::errored, "Cases that did not run");
  if (report.summary.findings > 0) {
    out.add(
        fmt::format("\n{} findings (not gating): observed implementations on a platform no "
                    "recorded one covers{}.\n",
                    report.summary.findings, nearest_platform(report)));
    out.add(differing_findings(report));
  }
  out.add(varying_checks(report, index));
  out.add(baseline_line(report));
  add_details(out, recap, RecapKind::drift, "Drifted cases");
  add_details(out, recap, RecapKind::varied, "Drifted cases known to vary (not gating)");
  add_details(out, recap, RecapKind::finding, "Violated findings");
  if (report.dispatch) {
    const auto findings = dispatch_findings(*report.dispatch);
    constexpr std::size_t kDispatchLines = 5;
    std::string text =
        fmt::format("\nDispatch map of {} along {}:\n", escape_markdown(report.dispatch->op),
                    escape_markdown(report.dispatch->axis));
    for (std::size_t i = 0; i < findings.size() && i < kDispatchLines; ++i) {
      text += "- " + escape_markdown(findings[i]) + "\n";
    }
    if (findings.size() > kDispatchLines) {
      text += fmt::format("- and {} more in the HTML report\n", findings.size() - kDispatchLines);
    }
    out.add(text);
  }
  return out.finish();
}

void MarkdownReportWriter::do_write(const Report& report) {
  write_file_atomically(path_, render_markdown(report, report_path_));
}

}  // namespace samebits
