// Runs one case: the check kind's run (harness/checks/<kind>.cpp) over the case's seeded items,
// after asking the op whether it can take the point here at all.
#include "harness/case_runner.h"

#include "harness/checks/check.h"

namespace samebits {

CaseRun run_case(const CaseSpec& spec, const at::Device& device, const CaseOptions& options) {
  if (auto why = spec.op->unsupported(spec.resolved, spec.impl, device)) throw Unsupported(*why);
  CaseContext context(spec, device, options);
  check_for(spec.check->kind).run(context);
  return context.take_result();
}

}  // namespace samebits
