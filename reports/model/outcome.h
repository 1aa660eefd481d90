// The gate: groups case verdicts by (contract, check, implementation, device), sets each group
// against its expectation, and turns the surprises into the run's exit code.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "reports/model/report.h"

namespace samebits {

// Process exit codes of `samebits run`.
enum ExitCode : int {
  kExitAsExpected = 0,      // every outcome as expected
  kExitUnexpected = 1,      // a new violation, or an expected violation that now holds
  kExitUsage = 2,           // bad command line or contract
  kExitInfrastructure = 3,  // a case could not run (error, crashed, timed out), or I/O failed
};

// How many cases each check has on a device in the whole plan, by
// "contract/check/impl/device": a run (a --case, a --filter, a shard) that holds fewer judges only
// what it ran. A check missing here counts as complete.
using PlannedCounts = std::map<std::string, std::int64_t>;
std::string planned_key(const std::string& contract, const std::string& check,
                        const std::string& impl, const std::string& device);

// Groups in first-seen order; each group's outcome follows the rules in outcome.cpp.
std::vector<CheckResult> judge_checks(const std::vector<CaseResult>& cases,
                                      const PlannedCounts& planned = {});
Summary summarize(const std::vector<CaseResult>& cases, const std::vector<CheckResult>& checks);

}  // namespace samebits
