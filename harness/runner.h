// Runs a planned list of cases on one device, one after another; a case that throws (out of memory,
// a CUDA error, an op refusing a shape) is recorded and the run goes on. Returns fewer results than
// cases only when options.stop was raised.
#pragma once

#include <ATen/ATen.h>

#include <csignal>
#include <map>
#include <string>
#include <vector>

#include "harness/plan.h"
#include "reports/report.h"

namespace samebits {

class KernelCapture;
class ExpectationResolver;
class CaseJournal;

struct RunnerOptions {
  bool progress = false;             // draw a progress bar on stderr
  KernelCapture* capture = nullptr;  // when set, each case records the kernels its sides launched
  bool record_properties = false;    // each case keeps what its sides' kernel choice may follow
  // Where each case's expectation comes from; without one, every case has its contract's promise.
  const ExpectationResolver* expectations = nullptr;
  // Each finished case goes to the journal as it ends (with kernel capture, when its kernels are
  // in: every 128 cases and at the end). Cases found in `finished` (a resumed journal, by id) are
  // taken from it, not run, and not journaled again.
  CaseJournal* journal = nullptr;
  const std::map<std::string, CaseResult>* finished = nullptr;
  // Nonzero (a signal number) once the run should stop: the case under way ends, no other starts.
  const volatile std::sig_atomic_t* stop = nullptr;
};

std::vector<CaseResult> run_cases(const std::vector<CaseSpec>& cases, const at::Device& device,
                                  const RunnerOptions& options);

}  // namespace samebits
