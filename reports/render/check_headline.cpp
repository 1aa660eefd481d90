// One check's result in a line, shared by the Markdown, JUnit and HTML renderings so they say the
// same thing in the same words; nothing here computes what the report does not hold.
#include "reports/render/check_headline.h"

#include <fmt/format.h>

#include "reports/model/outcome.h"

namespace samebits {

CaseIndex::CaseIndex(const Report& report) {
  for (const auto& c : report.cases)
    by_check_[planned_key(c.contract, c.check, c.impl, c.device)].push_back(&c);
}

const std::vector<const CaseResult*>& CaseIndex::of(const CheckResult& check) const {
  auto it = by_check_.find(planned_key(check.contract, check.check, check.impl, check.device));
  return it == by_check_.end() ? none_ : it->second;
}

std::string outcome_label(Outcome outcome) {
  switch (outcome) {
    case Outcome::as_expected: return "as expected";
    case Outcome::unexpected_violation: return "new violation";
    case Outcome::stale_expectation: return "now holds";
    case Outcome::informational: return "informational";
    case Outcome::not_run: return "not run";
    case Outcome::errored: return "errored";
    case Outcome::finding: return "finding";
    case Outcome::not_observed: return "not judged in this subset";
  }
  return "?";
}

std::string varying_note(const CheckResult& check) {
  if (!check.recorded_varying || check.outcome != Outcome::informational) return "";
  return "recorded as varying on " + check.observed_on;
}

std::string nearest_difference(const CheckResult& check) {
  if (check.outcome != Outcome::finding) return "";
  if (check.nearest_varying) return "varies";  // (whatever was seen here differs from chance)
  if (check.nearest_observed == Expectation::unknown) return "";
  const std::string there = to_string(check.nearest_observed);
  return there == to_string(check.observed) ? "" : there;
}

int surprise_rank(Outcome outcome) {
  if (fails_gate(outcome)) return 0;
  if (outcome == Outcome::errored) return 1;
  if (outcome == Outcome::finding) return 2;
  return 3;
}

std::string exit_meaning(int exit_code) {
  switch (exit_code) {
    case kExitAsExpected: return "every outcome as expected";
    case kExitUnexpected: return "unexpected outcomes";
    case kExitUsage: return "usage error";
    case kExitInfrastructure: return "a case could not run";
  }
  return "unknown exit code";
}

std::string exit_meaning(const Report& report) {
  const Summary& s = report.summary;
  if (s.exit_code == kExitUnexpected && s.unexpected == 0 && report.baseline_comparison) {
    return "the baseline comparison gates";
  }
  return exit_meaning(s.exit_code);
}

namespace {

std::string output_difference(const OutputResult& o) {
  const DiffStats& d = o.diff;
  std::string out = fmt::format("{} of {} elements differ", d.mismatched, d.numel);
  if (d.max_ulp && *d.max_ulp > 0) {
    out += fmt::format(", max {} ULP", *d.max_ulp);
  } else if (d.max_abs_error > 0) {
    out += fmt::format(", max abs error {:.3g}", d.max_abs_error);
  }
  if (d.nonfinite_mismatches > 0) out += fmt::format(", {} non-finite", d.nonfinite_mismatches);
  return out;
}

std::string cases_word(std::int64_t n) {
  return n == 1 ? "case" : "cases";
}

// The first case with this verdict; for error, the first that did not run (crashed, timed out).
const CaseResult* first_with(const std::vector<const CaseResult*>& cases, Verdict verdict) {
  for (const CaseResult* c : cases) {
    if (c->verdict == verdict || (verdict == Verdict::error && did_not_run(c->verdict))) return c;
  }
  return nullptr;
}

}  // namespace

std::string crash_counts(std::int64_t crashed, std::int64_t timed_out) {
  if (crashed == 0 && timed_out == 0) return "";
  return fmt::format(", {} crashed, {} timed out", crashed, timed_out);
}

std::string case_difference(const CaseResult& c) {
  if (did_not_run(c.verdict) || c.verdict == Verdict::skipped) return c.reason;
  std::vector<const OutputResult*> differing;
  for (const auto& o : c.outputs) {
    if (o.diff.mismatched > 0) differing.push_back(&o);
  }
  if (differing.empty()) return "no element differs";
  if (c.outputs.size() == 1) return output_difference(*differing.front());
  std::string out;
  for (const OutputResult* o : differing) {
    if (!out.empty()) out += "; ";
    out += o->name + ": " + output_difference(*o);
  }
  return out;
}

std::string check_headline(const CheckResult& check, const std::vector<const CaseResult*>& cases) {
  const std::int64_t run = check.held + check.violated;
  const std::string note = varying_note(check);
  const std::string label = outcome_label(check.outcome) + (note.empty() ? "" : ", " + note);
  const auto first = [&](Verdict verdict) {
    const CaseResult* c = first_with(cases, verdict);
    return c ? fmt::format("; first: case {}, {}", c->id, case_difference(*c)) : std::string();
  };
  switch (check.outcome) {
    case Outcome::unexpected_violation:
      return fmt::format("{}: {}/{} {} violated{}", label, check.violated, run, cases_word(run),
                         first(Verdict::violated));
    case Outcome::stale_expectation:
      return fmt::format("{}: expected violated, held in {}/{} {}", label, check.held, run,
                         cases_word(run));
    case Outcome::errored:
      if (check.crashed + check.timed_out > 0) {
        return fmt::format("{}: {} of {} {} did not run ({} errors{}){}", label,
                           check.errors + check.crashed + check.timed_out, check.cases,
                           cases_word(check.cases), check.errors,
                           crash_counts(check.crashed, check.timed_out), first(Verdict::error));
      }
      return fmt::format("{}: {} of {} {} raised an error{}", label, check.errors, check.cases,
                         cases_word(check.cases), first(Verdict::error));
    case Outcome::not_run:
      return fmt::format("{}: all {} {} skipped{}", label, check.skipped, cases_word(check.skipped),
                         first(Verdict::skipped));
    case Outcome::not_observed:
      return fmt::format("{}: expected violated, held in the {} of {} planned cases run", label,
                         run, check.planned);
    case Outcome::as_expected:
    case Outcome::informational:
    case Outcome::finding:
      if (check.violated > 0) {
        return fmt::format("{}: {}/{} {} violated{}", label, check.violated, run, cases_word(run),
                           first(Verdict::violated));
      }
      return fmt::format("{}: held in {}/{} {}", label, check.held, run, cases_word(run));
  }
  return label;
}

namespace {

std::string shell_quote(const std::string& arg) {
  const bool plain = !arg.empty() && arg.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789_-+=.,:/@%") == std::string::npos;
  if (plain) return arg;
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string rerun_command(const std::string& report_path, const std::string& case_id) {
  return "samebits run " + shell_quote(report_path) + " --case " + shell_quote(case_id);
}

std::string show_command(const std::string& report_path, const std::string& filter) {
  return "samebits show " + shell_quote(report_path) + " --filter " + shell_quote(filter);
}

std::string params_text(const Json& params) {
  std::string out;
  for (const auto& item : params.items()) {
    if (!out.empty()) out += ", ";
    out += item.key() + "=" +
           (item.value().is_string() ? item.value().get<std::string>() : item.value().dump());
  }
  return out;
}

}  // namespace samebits
