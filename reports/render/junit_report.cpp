// JUnit XML for CI: each check result is a test case named after the check and where it ran, so
// a CI's test view lists surprises like failing tests, with the diff headline as the message.
#include "reports/render/junit_report.h"

#include <fmt/format.h>

#include <map>

#include "common/atomic_file.h"
#include "reports/model/outcome.h"
#include "reports/render/check_headline.h"
#include "reports/render/markup.h"

namespace samebits {
namespace {

// Violated or errored cases listed in a failure's body.
constexpr std::size_t kFailureCases = 5;

std::string seconds(double s) {
  return fmt::format("{:.3f}", s < 0 ? 0.0 : s);
}

double check_seconds(const std::vector<const CaseResult*>& cases) {
  double ms = 0;
  for (const CaseResult* c : cases) ms += c->duration_ms;
  return ms / 1000;
}

// The first violated or errored cases, each with its difference and the command that reruns it.
std::string failure_body(const CheckResult& g, const std::vector<const CaseResult*>& cases,
                         const std::string& report_path) {
  std::string out = check_headline(g, cases) + "\n";
  std::size_t listed = 0, more = 0;
  for (const CaseResult* c : cases) {
    if (c->verdict != Verdict::violated && !did_not_run(c->verdict)) continue;
    if (listed == kFailureCases) {
      ++more;
      continue;
    }
    out += fmt::format("\n{}: {}: {}\n  rerun: {}\n", to_string(c->verdict), c->id,
                       case_difference(*c), rerun_command(report_path, c->id));
    ++listed;
  }
  if (more > 0) out += fmt::format("\nand {} more in the report\n", more);
  return escape_markup(out);
}

std::string testcase(const CheckResult& g, const std::vector<const CaseResult*>& cases,
                     const std::string& report_path) {
  std::string out = fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{}\">",
                                escape_markup("samebits." + g.contract),
                                escape_markup(g.check + "[" + g.impl + "/" + g.device + "]"),
                                seconds(check_seconds(cases)));
  const std::string headline = escape_markup(check_headline(g, cases));
  const std::string type = escape_markup(to_string(g.outcome));
  if (fails_gate(g.outcome)) {
    out += fmt::format("\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    ", headline,
                       type, failure_body(g, cases, report_path));
  } else if (g.outcome == Outcome::errored) {
    out += fmt::format("\n      <error message=\"{}\" type=\"{}\">{}</error>\n    ", headline, type,
                       failure_body(g, cases, report_path));
  } else if (g.outcome == Outcome::not_run) {
    out += fmt::format("\n      <skipped message=\"{}\"/>\n    ", headline);
  } else if (g.outcome != Outcome::as_expected) {
    out += fmt::format("\n      <system-out>{}</system-out>\n    ", headline);
  }
  return out + "</testcase>\n";
}

struct SuiteCounts {
  std::int64_t tests = 0, failures = 0, errors = 0, skipped = 0;
  double time = 0;
  std::string body;
};

}  // namespace

std::string render_junit(const Report& report, const std::string& report_path) {
  const CaseIndex index(report);
  std::vector<std::string> order;
  std::map<std::string, SuiteCounts> suites;
  for (const auto& g : report.checks) {
    auto [it, added] = suites.emplace(g.contract, SuiteCounts{});
    if (added) order.push_back(g.contract);
    SuiteCounts& s = it->second;
    ++s.tests;
    s.failures += fails_gate(g.outcome);
    s.errors += g.outcome == Outcome::errored;
    s.skipped += g.outcome == Outcome::not_run;
    s.time += check_seconds(index.of(g));
    s.body += testcase(g, index.of(g), report_path);
  }
  const std::string& hostname = report.environment.host.hostname;
  SuiteCounts total;
  std::string body;
  for (const auto& name : order) {
    const SuiteCounts& s = suites.at(name);
    total.tests += s.tests;
    total.failures += s.failures;
    total.errors += s.errors;
    body += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" "
        "time=\"{}\" timestamp=\"{}\" hostname=\"{}\">\n{}  </testsuite>\n",
        escape_markup("samebits." + name), s.tests, s.failures, s.errors, s.skipped,
        seconds(s.time), escape_markup(report.created), escape_markup(hostname), s.body);
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"samebits\" tests=\"{}\" "
      "failures=\"{}\" errors=\"{}\" time=\"{}\">\n{}</testsuites>\n",
      total.tests, total.failures, total.errors, seconds(report.summary.duration_s), body);
}

void JunitReportWriter::do_write(const Report& report) {
  write_file_atomically(path_, render_junit(report, report_path_));
}

}  // namespace samebits
