// Runs a planned list of cases on one device, one after another; a case that throws (out of memory,
// a CUDA error, an op refusing a shape) is recorded and the run goes on.
#pragma once

#include <ATen/ATen.h>

#include <vector>

#include "harness/plan.h"
#include "reports/report.h"

namespace samebits {

class KernelCapture;
class ExpectationResolver;

struct RunnerOptions {
  bool progress = false;             // draw a progress bar on stderr
  KernelCapture* capture = nullptr;  // when set, each case records the kernels its sides launched
  bool record_properties = false;    // each case keeps what its sides' kernel choice may follow
  // Where each case's expectation comes from; without one, every case has its contract's promise.
  const ExpectationResolver* expectations = nullptr;
};

std::vector<CaseResult> run_cases(const std::vector<CaseSpec>& cases, const at::Device& device,
                                  const RunnerOptions& options);

}  // namespace samebits
