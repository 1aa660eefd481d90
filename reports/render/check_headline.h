// One check's result in a line, and the words every rendering shares for it: what an outcome means,
// how two outputs of a case differ, and the command that reruns a case. Plain text, not escaped.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "reports/model/report.h"

namespace samebits {

// A report's cases grouped by check (contract, check, implementation, device), in report order.
class CaseIndex {
 public:
  explicit CaseIndex(const Report& report);
  const std::vector<const CaseResult*>& of(const CheckResult& check) const;

 private:
  std::map<std::string, std::vector<const CaseResult*>> by_check_;
  std::vector<const CaseResult*> none_;
};

// "as expected", "new violation", "now holds", "informational", "not run", "errored", "finding",
// "not judged in this subset".
std::string outcome_label(Outcome outcome);

// "recorded as varying on h200" for an informational check whose covering platform records it as
// "varies" (seen both ways there: its outcome is chance), else "". Each rendering says it beside
// the outcome, so such a check does not read as one with no expectation at all.
std::string varying_note(const CheckResult& check);

// For a finding: what the nearest recorded platform saw of it ("holds", "violated", or "varies"
// where it records the check as seen both ways), when that differs from what was seen here; else
// "" (not a finding, nothing recorded there, or the same outcome). Every findings list uses it.
std::string nearest_difference(const CheckResult& check);

// Surprises first: 0 fails the gate, 1 errored, 2 finding, 3 anything else.
int surprise_rank(Outcome outcome);

// What the exit code says: "every outcome as expected", "unexpected outcomes", ...
std::string exit_meaning(int exit_code);
// The same for a report: an exit 1 that only the baseline comparison caused says so.
std::string exit_meaning(const Report& report);

// ", 1 crashed, 0 timed out" when a case crashed or timed out, else "": after "N errors" in every
// summary line, so runs without either read as before.
std::string crash_counts(std::int64_t crashed, std::int64_t timed_out);

// How a case's outputs differ: "12 of 4096 elements differ, max 2 ULP" (outputs named when there
// are several), its error or skip reason, or "no element differs".
std::string case_difference(const CaseResult& c);

// The check's verdict against its expectation, with the first deciding case:
// "new violation: 3/8 cases violated; first: case ID, 12 of 4096 elements differ, max 2 ULP", or
// "informational, recorded as varying on h200: 1/4 cases violated; first: ...".
std::string check_headline(const CheckResult& check, const std::vector<const CaseResult*>& cases);

// `samebits run REPORT --case ID`, each argument quoted for a POSIX shell where it needs it.
std::string rerun_command(const std::string& report_path, const std::string& case_id);
// `samebits show REPORT --filter REGEX`, quoted the same way.
std::string show_command(const std::string& report_path, const std::string& filter);

// A case's params as "k=v, k=v" (strings unquoted, other values as JSON).
std::string params_text(const Json& params);

}  // namespace samebits
