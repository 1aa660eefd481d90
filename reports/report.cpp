// The names of the report model's enums: how verdicts and outcomes read in JSON and on screens.
// One table each, so writers and readers of reports agree.
#include "reports/report.h"

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

std::string to_string(ExpectationSource source) {
  switch (source) {
    case ExpectationSource::promise: return "promise";
    case ExpectationSource::observation: return "observation";
    case ExpectationSource::none: return "none";
  }
  return "?";
}

std::string to_string(Outcome outcome) {
  return outcome_names().at(static_cast<std::size_t>(outcome));
}

}  // namespace samebits
