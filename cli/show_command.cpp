// `samebits show REPORT [ID | --filter REGEX]`: what a report holds, in the terminal, without
// opening the JSON: its recap of what failed, or a case's diff (ULP histogram, mismatches in hex).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "cli/commands.h"
#include "cli/console_options.h"
#include "common/errors.h"
#include "harness/selection.h"
#include "reports/model/outcome.h"
#include "reports/model/report_reader.h"
#include "reports/render/case_detail.h"
#include "reports/render/check_headline.h"
#include "reports/render/recap.h"

namespace samebits {
namespace {

constexpr std::size_t kCasesShown = 20;

struct ShowOptions {
  std::string report;
  std::string case_id;
  std::string filter;
  ConsoleOptions console;
};

// An unknown id: the error lists the report's ids that share the longest prefix with it.
[[noreturn]] void unknown_case(const Report& report, const ShowOptions& o) {
  std::size_t best = 0;
  std::vector<std::string> near;
  for (const auto& c : report.cases) {
    const auto common = static_cast<std::size_t>(
        std::mismatch(c.id.begin(), c.id.begin() + std::min(c.id.size(), o.case_id.size()),
                      o.case_id.begin())
            .first -
        c.id.begin());
    if (common > best) best = common, near.clear();
    if (common == best && near.size() < 5) near.push_back(c.id);
  }
  throw ContractError(fmt::format(
      "{}: no case \"{}\" in this report ({} cases){}", o.report, o.case_id, report.cases.size(),
      near.empty() || best == 0 ? std::string()
                                : fmt::format("; the nearest ids:\n  {}", fmt::join(near, "\n  "))));
}

int show(const ShowOptions& o) {
  if (!o.case_id.empty() && !o.filter.empty()) {
    throw ContractError("show: give a case id or --filter, not both");
  }
  const Report report = read_report_file(o.report);
  const ConsoleStyle style = console_style(o.console, stdout, o.report);
  if (!o.case_id.empty()) {
    const auto it = std::find_if(report.cases.begin(), report.cases.end(),
                                 [&](const CaseResult& c) { return c.id == o.case_id; });
    if (it == report.cases.end()) unknown_case(report, o);
    fmt::print("{}", case_detail_text(*it, o.report, style.color));
    return 0;
  }
  if (!o.filter.empty()) {
    std::vector<std::string> ids;
    for (const auto& c : report.cases) ids.push_back(c.id);
    const std::vector<bool> keep = ids_matching(ids, o.filter);
    const auto matched = static_cast<std::size_t>(std::count(keep.begin(), keep.end(), true));
    if (matched == 0) {
      throw ContractError(fmt::format(
          "{}: --filter \"{}\" selects none of its {} cases (it matches at the start of the id or "
          "of a part after / or ,)",
          o.report, o.filter, report.cases.size()));
    }
    std::size_t shown = 0;
    for (std::size_t i = 0; i < report.cases.size(); ++i) {
      if (!keep[i]) continue;
      if (shown == kCasesShown && style.verbosity != Verbosity::verbose) break;
      fmt::print("{}{}", shown > 0 ? "\n" : "", case_detail_text(report.cases[i], o.report, style.color));
      ++shown;
    }
    if (shown < matched) fmt::print("\n... {} more cases match (-v shows every one)\n", matched - shown);
    return 0;
  }
  const Summary& s = report.summary;
  fmt::print("{}: exit {} ({}); {} checks, {} cases: {} held, {} violated, {} skipped, {} errors{}\n",
             o.report, s.exit_code, exit_meaning(report), s.checks, s.cases, s.held, s.violated,
             s.skipped, s.errors, crash_counts(s.crashed, s.timed_out));
  const std::string recap = recap_text(recap_of(report, o.report), o.report,
                                       RecapStyle{style.verbosity == Verbosity::verbose, style.color});
  fmt::print("{}", recap.empty() ? "nothing to recap: no unexpected outcome, error, drift or violated finding\n"
                                 : recap);
  return 0;
}

}  // namespace

std::shared_ptr<int> setup_show_command(CLI::App& app) {
  auto o = std::make_shared<ShowOptions>();
  auto code = std::make_shared<int>(-1);
  auto* cmd = app.add_subcommand(
      "show",
      "Print a report's recap of what failed, or a case's diff (the ULP histogram, the first "
      "mismatches with both values in hex, the rerun command)");
  cmd->add_option("report", o->report, "the JSON report (.json or .json.gz)")->required();
  cmd->add_option("id", o->case_id, "the case to show (its whole id)");
  cmd->add_option("--filter", o->filter,
                  "show the cases whose id matches this POSIX extended regex, as `run --filter`");
  add_console_options(*cmd, o->console, /*quiet=*/false);
  cmd->callback([o, code] { *code = show(*o); });
  return code;
}

}  // namespace samebits
