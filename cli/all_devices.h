// `samebits run --devices all`: one share of the run per visible GPU, each a child `samebits run
// --shard I/N` pinned to its GPU, side by side; then the shares merged into one report.
#pragma once

#include <string>
#include <vector>

#include "cli/render_options.h"

namespace samebits {

// `argv`: this command line (its --devices, --shard, --device and --report are replaced per
// share). The shares' reports and logs go to REPORT.shares/. Returns the merged run's exit code;
// 3 when a share wrote no report (its log is named). The renderings in `targets` are drawn from
// the merged report.
int run_on_all_devices(const std::vector<std::string>& argv, const std::string& report,
                       const RenderTargets& targets);

}  // namespace samebits
