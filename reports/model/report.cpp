// The names of the report model's enums: how verdicts and outcomes read in JSON and on screens.
// One table each, so writers and readers of reports agree.
#include "reports/model/report.h"

namespace samebits {

const std::vector<std::string>& verdict_names() {
  static const std::vector<std::string> names = {"holds", "violated", "skipped",
                                                 "error", "crashed",  "timed_out"};
  return names;
}

std::string to_string(Verdict verdict) {
  return verdict_names().at(static_cast<std::size_t>(verdict));
}

const std::vector<std::string>& outcome_names() {
  static const std::vector<std::string> names = {"as_expected",       "unexpected_violation",
                                                 "stale_expectation", "informational",
                                                 "not_run",           "errored",
                                                 "finding",           "not_observed_in_subset"};
  return names;
}

const std::vector<std::string>& expectation_source_names() {
  static const std::vector<std::string> names = {"promise", "observation", "none"};
  return names;
}

std::string to_string(ExpectationSource source) {
  return expectation_source_names().at(static_cast<std::size_t>(source));
}

std::string to_string(Outcome outcome) {
  return outcome_names().at(static_cast<std::size_t>(outcome));
}

}  // namespace samebits
