// The gate: groups case verdicts by (contract, check, implementation, device), sets each group
// against its expectation, and turns the surprises into the run's exit code.
#include "reports/model/outcome.h"

#include <map>
#include <set>
#include <tuple>

namespace samebits {

bool fails_gate(Outcome outcome) {
  return outcome == Outcome::unexpected_violation || outcome == Outcome::stale_expectation;
}

namespace {

// violated > 0 decides at once; otherwise a case that did not run (an error, a crash, a timeout)
// leaves the group undecided, and only a group whose every run case held counts as holding. Without
// an expectation for this platform the outcome is a finding; an expected violation that a subset of
// the check did not meet is not judged (only the whole check can say it now holds).
std::int64_t not_run_cases(const CheckResult& g) {
  return g.errors + g.crashed + g.timed_out;
}

Outcome judge(const CheckResult& g) {
  if (g.expected_from == ExpectationSource::none) {
    if (not_run_cases(g) > 0 && g.violated == 0) return Outcome::errored;
    return g.held + g.violated > 0 ? Outcome::finding : Outcome::not_run;
  }
  if (g.violated > 0) {
    switch (g.expected) {
      case Expectation::holds: return Outcome::unexpected_violation;
      case Expectation::violated: return Outcome::as_expected;
      case Expectation::unknown: return Outcome::informational;
    }
  }
  if (not_run_cases(g) > 0) return Outcome::errored;
  if (g.held == 0) return Outcome::not_run;
  switch (g.expected) {
    case Expectation::holds: return Outcome::as_expected;
    case Expectation::violated:
      return g.cases < g.planned ? Outcome::not_observed : Outcome::stale_expectation;
    case Expectation::unknown: return Outcome::informational;
  }
  return Outcome::informational;
}

Verdict observed(const CheckResult& g) {
  if (g.violated > 0) return Verdict::violated;
  if (g.crashed > 0) return Verdict::crashed;
  if (g.timed_out > 0) return Verdict::timed_out;
  if (g.errors > 0) return Verdict::error;
  if (g.held > 0) return Verdict::holds;
  return Verdict::skipped;
}

// For axes that take several values in a group: how many of the run cases at each value violated.
std::vector<AxisTally> tally_axes(const std::vector<const CaseResult*>& cases) {
  std::map<std::string, std::map<std::string, AxisTally>> by_axis;
  std::vector<std::string> axis_order;
  std::map<std::string, std::vector<std::string>> value_order;
  for (const CaseResult* c : cases) {
    if (c->verdict != Verdict::holds && c->verdict != Verdict::violated) continue;
    for (const auto& item : c->params.items()) {
      const std::string value =
          item.value().is_string() ? item.value().get<std::string>() : item.value().dump();
      auto& values = by_axis[item.key()];
      if (values.empty()) axis_order.push_back(item.key());
      auto it = values.find(value);
      if (it == values.end()) {
        it = values.emplace(value, AxisTally{item.key(), value, 0, 0}).first;
        value_order[item.key()].push_back(value);
      }
      ++it->second.total;
      if (c->verdict == Verdict::violated) ++it->second.violated;
    }
  }
  std::vector<AxisTally> out;
  for (const auto& axis : axis_order) {
    if (by_axis[axis].size() < 2) continue;
    for (const auto& value : value_order[axis]) out.push_back(by_axis[axis][value]);
  }
  return out;
}

}  // namespace

std::string planned_key(const std::string& contract, const std::string& check,
                        const std::string& impl, const std::string& device) {
  return contract + "/" + check + "/" + impl + "/" + device;
}

std::vector<CheckResult> judge_checks(const std::vector<CaseResult>& cases,
                                      const PlannedCounts& planned) {
  using Key = std::tuple<std::string, std::string, std::string, std::string>;
  std::map<Key, std::size_t> index;
  std::vector<CheckResult> groups;
  std::vector<std::vector<const CaseResult*>> members;
  for (const auto& c : cases) {
    const Key key{c.contract, c.check, c.impl, c.device};
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, groups.size()).first;
      CheckResult g;
      g.contract = c.contract;
      g.check = c.check;
      g.kind = c.kind;
      g.impl = c.impl;
      g.device = c.device;
      g.expected = c.expected;
      g.expected_from = c.expected_from;
      g.observed_on = c.observed_on;
      g.recorded_varying = c.recorded_varying;
      groups.push_back(g);
      members.emplace_back();
    }
    CheckResult& g = groups[it->second];
    members[it->second].push_back(&c);
    ++g.cases;
    switch (c.verdict) {
      case Verdict::holds: ++g.held; break;
      case Verdict::violated: ++g.violated; break;
      case Verdict::skipped: ++g.skipped; break;
      case Verdict::error: ++g.errors; break;
      case Verdict::crashed: ++g.crashed; break;
      case Verdict::timed_out: ++g.timed_out; break;
    }
  }
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const auto it = planned.find(
        planned_key(groups[i].contract, groups[i].check, groups[i].impl, groups[i].device));
    groups[i].planned = it == planned.end() ? groups[i].cases : it->second;
    groups[i].observed = observed(groups[i]);
    groups[i].outcome = judge(groups[i]);
    groups[i].violations_by_axis = tally_axes(members[i]);
  }
  return groups;
}

Summary summarize(const std::vector<CaseResult>& cases, const std::vector<CheckResult>& checks) {
  Summary s;
  for (const auto& c : cases) {
    ++s.cases;
    switch (c.verdict) {
      case Verdict::holds: ++s.held; break;
      case Verdict::violated: ++s.violated; break;
      case Verdict::skipped: ++s.skipped; break;
      case Verdict::error: ++s.errors; break;
      case Verdict::crashed: ++s.crashed; break;
      case Verdict::timed_out: ++s.timed_out; break;
    }
  }
  bool errored = false;
  for (const auto& g : checks) {
    ++s.checks;
    if (g.outcome == Outcome::as_expected) ++s.as_expected;
    if (fails_gate(g.outcome)) ++s.unexpected;
    if (g.outcome == Outcome::informational) ++s.informational;
    if (g.outcome == Outcome::finding) ++s.findings;
    if (g.outcome == Outcome::not_observed) ++s.not_observed;
    if (g.outcome == Outcome::errored) errored = true;
  }
  // A crashed or timed-out case is "a case could not run" (exit 3), like an error: it says nothing
  // about the bits the contract promises, and a gate that read it as a broken promise (exit 1)
  // would blame the contract for a kernel that dies; an unexpected outcome elsewhere still wins
  // (exit 1).
  const bool not_run = s.errors + s.crashed + s.timed_out > 0;
  s.exit_code = s.unexpected > 0       ? kExitUnexpected
                : (errored || not_run) ? kExitInfrastructure
                                       : kExitAsExpected;
  return s;
}

}  // namespace samebits
