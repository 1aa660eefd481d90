// The gate: groups case verdicts by (contract, check, implementation, device), sets each group
// against its expectation, and turns the surprises into the run's exit code.
#pragma once

#include <vector>

#include "reports/report.h"

namespace samebits {

// Process exit codes of `samebits run`.
enum ExitCode : int {
  kExitAsExpected = 0,      // every outcome as expected
  kExitUnexpected = 1,      // a new violation, or an expected violation that now holds
  kExitUsage = 2,           // bad command line or contract
  kExitInfrastructure = 3,  // a case could not run (CUDA error, out of memory, I/O)
};

// Groups in first-seen order; each group's outcome follows the rules in outcome.cpp.
std::vector<CheckResult> judge_checks(const std::vector<CaseResult>& cases);
Summary summarize(const std::vector<CaseResult>& cases, const std::vector<CheckResult>& checks);

}  // namespace samebits
