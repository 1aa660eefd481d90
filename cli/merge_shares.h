// The whole run from its shares' reports, by the plan each records (no planning again): merge,
// print the summary, write the report and its renderings.
#pragma once

#include <string>
#include <vector>

#include "cli/render_options.h"

namespace samebits {

// `samebits report merge` and the end of `run --devices all`: the exit code of the merged run
// (3 when the report could not be written). Throws ContractError for shares that do not belong
// together (reports/model/report_merge.h). Writes the renderings in `targets` of the merged report.
int merge_shares(const std::vector<std::string>& inputs, const std::string& out,
                 const std::vector<std::string>& argv, const RenderTargets& targets);

}  // namespace samebits
