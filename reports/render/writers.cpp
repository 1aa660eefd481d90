// The JSON file writer and the terminal renderings (a run's summary, a sweep's dispatch table).
// All read the same Report; none computes anything the report does not already hold.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/atomic_file.h"
#include "reports/model/json_report.h"
#include "reports/model/platform.h"
#include "reports/render/check_headline.h"
#include "reports/render/dispatch_text.h"
#include "reports/render/recap.h"
#include "reports/render/report_writer.h"

namespace samebits {

void JsonReportWriter::do_write(const Report& report) {
  write_file_atomically(path_, render_report(report_to_json(report)));
}

namespace {

const char* mark(Outcome outcome) {
  switch (outcome) {
    case Outcome::as_expected: return "ok";
    case Outcome::unexpected_violation: return "FAIL new violation";
    case Outcome::stale_expectation: return "FAIL now holds";
    case Outcome::informational: return "info";
    case Outcome::not_run: return "skipped";
    case Outcome::errored: return "ERROR";
    case Outcome::finding: return "finding";
    case Outcome::not_observed: return "not in subset";
  }
  return "?";
}

// Findings are what observed implementations did on a platform no recorded observation covers:
// where this machine stands, and how to record it so they gate here too.
void print_findings_note(std::FILE* out, const Report& report) {
  const RunSettings& settings = report.settings;
  const PlatformFingerprint& here = settings.platform;
  fmt::print(out,
             "{} findings: what the observed implementations did on this platform, which no "
             "recorded platform covers ({}); they do not gate.\n",
             report.summary.findings, here.describe());
  if (settings.nearest_platform) {
    const std::string& name = settings.nearest_platform->name;
    fmt::print(out, "Nearest recorded platform: {} ({}).\n", name,
               fmt::join(settings.nearest_platform->differences, "; "));
    std::vector<std::string> differing;
    for (const auto& g : report.checks) {
      const std::string there = nearest_difference(g);
      if (there.empty()) continue;
      differing.push_back(fmt::format("  {}/{}/{}: {} here, {} on {}", g.contract, g.check, g.impl,
                                      to_string(g.observed), there, name));
    }
    if (!differing.empty()) {
      fmt::print(out, "Findings that differ from {}:\n{}\n", name, fmt::join(differing, "\n"));
    }
  }
  fmt::print(out,
             "To record this platform: samebits baseline write REPORT --outcomes-only --name NAME "
             "-o contracts/observed/NAME.json, then list it in contracts/CMakeLists.txt and "
             "rebuild, or pass it to `samebits run --observations FILE`.\n");
}

// Cases that crashed or timed out, and why the run ended early where it did, under the summary: a
// gate's log then names them without opening the report.
void print_not_run_cases(std::FILE* out, const Report& report) {
  constexpr std::size_t kShown = 5;
  std::size_t shown = 0, more = 0;
  for (const auto& c : report.cases) {
    if (c.verdict != Verdict::crashed && c.verdict != Verdict::timed_out) continue;
    if (shown == kShown) {
      ++more;
      continue;
    }
    const std::string first_line = c.reason.substr(0, c.reason.find('\n'));
    fmt::print(out, "{}: {}: {}\n", to_string(c.verdict), c.id, first_line);
    ++shown;
  }
  if (more > 0) fmt::print(out, "... {} more crashed or timed out (in the report)\n", more);
  if (const auto& b = report.settings.context_broken) {
    fmt::print(out,
               "the CUDA context broke in case {}: the run ended after it ({} of {} cases ran); "
               "`samebits run --isolate` runs the rest in fresh processes\n",
               b->case_id, b->cases_run, b->cases_planned);
  }
}

// The outcome's mark, red where it fails the gate or errored, yellow for a finding.
std::string painted_mark(Outcome outcome, bool color) {
  const std::string text = mark(outcome);
  if (!color) return text;
  if (fails_gate(outcome) || outcome == Outcome::errored) return "\033[1;31m" + text + "\033[0m";
  if (outcome == Outcome::finding) return "\033[33m" + text + "\033[0m";
  if (outcome == Outcome::as_expected) return "\033[32m" + text + "\033[0m";
  return text;
}

// "none" for a finding, "varies" for a check its platform records so, else the expectation.
std::string expected_column(const CheckResult& g) {
  if (g.expected_from == ExpectationSource::none) return "none";
  return g.recorded_varying ? "varies" : to_string(g.expected);
}

int rank(Outcome outcome) {
  if (fails_gate(outcome)) return 0;
  if (outcome == Outcome::errored) return 1;
  if (outcome == Outcome::finding) return 2;
  return 3;
}

}  // namespace

void ConsoleSummaryWriter::do_write(const Report& report) {
  std::vector<const CheckResult*> rows;
  for (const auto& g : report.checks) rows.push_back(&g);
  std::stable_sort(rows.begin(), rows.end(), [](const CheckResult* a, const CheckResult* b) {
    return rank(a->outcome) < rank(b->outcome);
  });
  std::size_t w_contract = 8, w_check = 5, w_impl = 4;
  if (style_.verbosity == Verbosity::quiet) rows.clear();
  for (const auto* g : rows) {
    w_contract = std::max(w_contract, g->contract.size());
    w_check = std::max(w_check, g->check.size());
    w_impl = std::max(w_impl, g->impl.size());
  }
  if (!rows.empty()) {
    fmt::print(out_, "\n{:<{}}  {:<{}}  {:<{}}  {:<6}  {:<8}  {:<8}  {:>13}  {}\n", "contract",
               w_contract, "check", w_check, "impl", w_impl, "device", "expected", "observed",
               "violated/run", "outcome");
  }
  for (const auto* g : rows) {
    const std::int64_t run = g->held + g->violated;
    const std::string note = varying_note(*g);
    fmt::print(out_, "{:<{}}  {:<{}}  {:<{}}  {:<6}  {:<8}  {:<8}  {:>13}  {}{}\n", g->contract,
               w_contract, g->check, w_check, g->impl, w_impl, g->device, expected_column(*g),
               to_string(g->observed), fmt::format("{}/{}", g->violated, run),
               painted_mark(g->outcome, style_.color), note.empty() ? "" : ", " + note);
  }
  const Summary& s = report.summary;
  fmt::print(
      out_,
      "\n{} checks: {} as expected, {} unexpected, {} informational, {} findings, {} not "
      "judged in this subset; {} cases: {} held, {} violated, {} skipped, {} errors{}; {:.1f} s; "
      "exit {}\n",
      s.checks, s.as_expected, s.unexpected, s.informational, s.findings, s.not_observed, s.cases,
      s.held, s.violated, s.skipped, s.errors, crash_counts(s.crashed, s.timed_out), s.duration_s,
      s.exit_code);
  print_not_run_cases(out_, report);
  if (const auto& o = report.environment.platform_override) {
    fmt::print(out_, "platform stated by {}: {} (detected: {})\n", o->source,
               fingerprint_of(report.environment).describe(), o->detected.describe());
  }
  if (s.findings > 0) print_findings_note(out_, report);
}

void ConsoleRecapWriter::do_write(const Report& report) {
  const std::string text =
      recap_text(recap_of(report, style_.report_path), style_.report_path,
                 RecapStyle{style_.verbosity == Verbosity::verbose, style_.color});
  if (!text.empty()) fmt::print(out_, "\n{}", text);
}

void DispatchTableWriter::do_write(const Report& report) {
  if (report.dispatch) print_dispatch_table(out_, *report.dispatch);
  constexpr std::size_t kShown = 5;
  std::size_t shown = 0, not_run = 0;
  for (const auto& c : report.cases) {
    if (c.verdict != Verdict::skipped && !did_not_run(c.verdict)) continue;
    if (++not_run > kShown) continue;
    fmt::print(out_, "{}: {}: {}\n", to_string(c.verdict), c.id, c.reason);
    ++shown;
  }
  if (not_run > shown) fmt::print(out_, "... {} more not run (in the report)\n", not_run - shown);
  const Summary& s = report.summary;
  fmt::print(out_, "{} cases: {} held, {} violated, {} skipped, {} errors{}; {:.1f} s; exit {}\n",
             s.cases, s.held, s.violated, s.skipped, s.errors, crash_counts(s.crashed, s.timed_out),
             s.duration_s, s.exit_code);
}

}  // namespace samebits
