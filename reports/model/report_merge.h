// Joining the reports of a run's shares (--shard, --devices all, job arrays) into the report of the
// whole run: cases in plan order, checks judged again over all of them, one summary.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "reports/model/outcome.h"
#include "reports/model/report.h"

namespace samebits {

struct ReportPart {
  std::string source;  // its path, for messages and "merged_from"
  Report report;
};

// The parts' cases in the order of the plan they record (RunPlan, CaseResult::index), each check
// judged against the size its parts record (CheckResult::planned). Throws ContractError naming the
// part when parts disagree on contracts, device, seed, platform or plan, when a part records no
// plan (before 3.1), when a case appears twice or lies outside the plan, or for a sweep's report.
Report merge_reports(const std::vector<ReportPart>& parts);

}  // namespace samebits
