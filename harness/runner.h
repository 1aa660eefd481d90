// Runs a planned list of cases on one device, one after another; a case that throws (out of memory,
// a CUDA error, an op refusing a shape) is recorded and the run goes on.
#pragma once

#include <ATen/ATen.h>

#include <vector>

#include "harness/plan.h"
#include "reports/report.h"

namespace samebits {

class KernelCapture;

struct RunnerOptions {
  bool progress = false;             // draw a progress bar on stderr
  KernelCapture* capture = nullptr;  // when set, each case records the kernels its sides launched
  bool record_properties = false;    // each case keeps what its sides' kernel choice may follow
};

std::vector<CaseResult> run_cases(const std::vector<CaseSpec>& cases, const at::Device& device,
                                  const RunnerOptions& options);

}  // namespace samebits
