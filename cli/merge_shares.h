// The whole run from its shares' reports: plan the run again from the contracts the first share
// carries (its order and each check's size), merge, print the summary, write the report.
#pragma once

#include <string>
#include <vector>

#include "cli/render_options.h"

namespace samebits {

// `samebits report merge` and the end of `run --devices all`: the exit code of the merged run
// (3 when the report could not be written). Throws ContractError for shares that do not belong
// together (reports/report_merge.h). Writes the renderings in `targets` of the merged report.
int merge_shares(const std::vector<std::string>& inputs, const std::string& out,
                 const std::vector<std::string>& argv, const RenderTargets& targets);

}  // namespace samebits
