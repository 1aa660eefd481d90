// Runs a planned list of cases on one device, several at a time where asked, recorded in plan order;
// a case that throws (out of memory, a CUDA error, an op refusing a shape) is recorded and the run
// goes on, unless its error left the CUDA context unusable: the run ends after that case.
#pragma once

#include <ATen/ATen.h>

#include <csignal>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "harness/plan.h"
#include "reports/model/report.h"

namespace samebits {

class KernelCapture;
class ExpectationResolver;
class CaseJournal;
struct CaseFault;

// Told as each case starts and as it ends (`run --isolate`'s child tells its parent, which then
// knows which case a crash or a hang belongs to).
class CaseEvents {
 public:
  virtual ~CaseEvents() = default;
  virtual void started(const std::string& id) = 0;
  virtual void finished(const std::string& id) = 0;
  // The case (finished, journaled) broke the CUDA context: the run ends after it.
  virtual void context_broken(const std::string& id) = 0;
};

struct RunnerOptions {
  // Cases worked at once, each on a thread of its own (on CUDA with a stream of its own). Every
  // case draws its inputs from its own seeds, so its bits are the same as when run alone; results,
  // journal and progress keep plan order. A case that runs out of memory is run again alone. With
  // `events` (a child of `run --isolate`): one.
  int jobs = 1;
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
  // Cases a `run --isolate` parent saw crash or time out (the journal's fault lines, by id): each
  // is recorded with its fault's verdict and reason, not run, and journaled.
  const std::map<std::string, CaseFault>* faults = nullptr;
  // Journal (and collect kernels for) every case as it ends, whatever the kernel capture: a child
  // of `run --isolate` may die at the next case.
  bool journal_every_case = false;
  CaseEvents* events = nullptr;
  // Whether an error left the device unusable; default: a CUDA device whose context reports a
  // sticky error (tests give their own).
  std::function<bool(const at::Device&)> context_broken;
  // Nonzero (a signal number) once the run should stop: the case under way ends, no other starts
  // (cases the journal decided are still taken).
  const volatile std::sig_atomic_t* stop = nullptr;
};

struct RunnerResult {
  std::vector<CaseResult> cases;  // fewer than planned when stopped or when the context broke
  std::string context_broken_in;  // the id of the case whose error broke the CUDA context, or ""
};

RunnerResult run_cases(const std::vector<CaseSpec>& cases, const at::Device& device,
                       const RunnerOptions& options);

}  // namespace samebits
