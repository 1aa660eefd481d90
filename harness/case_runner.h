// Runs one case: the check kind's run (harness/checks/<kind>.cpp) over the case's seeded items,
// after asking the op whether it can take the point here at all.
#pragma once

#include <ATen/ATen.h>

#include "harness/checks/case_context.h"
#include "harness/plan.h"

namespace samebits {

// Throws Unsupported when the case cannot run here (recorded as skipped); any other exception
// is the case's error.
CaseRun run_case(const CaseSpec& spec, const at::Device& device, const CaseOptions& options = {});

}  // namespace samebits
