// Joining the reports of a run's shares (--shard, --devices all, job arrays) into the report of the
// whole run: cases in plan order, checks judged again over all of them, one summary.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "reports/outcome.h"
#include "reports/report.h"

namespace samebits {

struct ReportPart {
  std::string source;  // its path, for messages and "merged_from"
  Report report;
};

// `plan_order`: every case id of the whole run, in plan order; `planned`: each check's cases in it.
// Throws ContractError naming the part when parts disagree on contracts, device, seed or platform,
// when a case appears twice, when a part holds a case the plan does not, or for a sweep's report.
Report merge_reports(const std::vector<ReportPart>& parts,
                     const std::vector<std::string>& plan_order, const PlannedCounts& planned);

}  // namespace samebits
