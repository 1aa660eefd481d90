// The one way a run is made, from loaded contracts to a judged report: plan, select, run, judge,
// summarize. `samebits run`, `samebits sweep` and the tests all call it.
#pragma once

#include <ATen/ATen.h>

#include <csignal>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "contracts/contract.h"
#include "harness/op_registry.h"
#include "harness/plan.h"
#include "harness/runner.h"
#include "harness/selection.h"
#include "reports/model/baseline.h"
#include "reports/model/outcome.h"
#include "reports/model/report.h"

namespace samebits {

struct RunRequest {
  const std::vector<std::unique_ptr<Contract>>* contracts = nullptr;
  const OpRegistry* registry = nullptr;
  std::string device = "auto";  // auto, cpu, cuda; a --case id's device wins over auto
  CaseSelection selection;
  std::uint64_t seed = 0;
  std::string capture = "auto";  // kernel capture: auto, on, off
  int jobs = 0;                  // cases at once (RunnerOptions::jobs); 0: resolve_jobs decides
  bool progress = false;
  bool record_properties = false;    // keep Op::dispatch_properties per side (sweeps)
  std::vector<std::string> command;  // argv, for the report
  std::vector<std::string> named;    // the contract paths named (empty: the embedded suite)
  // The platforms whose recorded outcomes may serve as observations (the first covering this
  // machine does); none: an observed implementation's outcomes are findings.
  std::vector<Baseline> recorded;
  // The journal each finished case is appended to ("": none), and a journal of an interrupted run
  // of the same plan whose cases are taken instead of run ("": none).
  std::string journal;
  std::string resume;
  // Set to a signal's number (SIGINT, SIGTERM) to stop after the case under way.
  const volatile std::sig_atomic_t* stop = nullptr;
  // `run --isolate`'s child: journal every case as it ends, and tell the parent each case's start
  // and end.
  bool journal_every_case = false;
  CaseEvents* events = nullptr;
  // Whether an error left the device unusable (RunnerOptions::context_broken); default: CUDA's.
  std::function<bool(const at::Device&)> context_broken;
};

struct PlannedRun {
  at::Device device = at::kCPU;
  std::string device_name;             // "cpu" or "cuda"
  std::vector<CaseSpec> cases;         // this run's (its share's, under --shard)
  RunPlan whole;                       // the whole run's, which every share records
  std::size_t contracts_selected = 0;  // contracts with at least one selected case
  PlannedCounts planned;               // each check's cases before selection: what is whole
};

// Cases a run works at once: `asked` when positive; else on CUDA half the host's cores (at most
// 8: the device, not the host, bounds it beyond that), on the CPU 1 (ATen's threads use the cores).
int resolve_jobs(int asked, const at::Device& device);

// Chooses the device and plans and selects the cases. Throws ContractError for contracts or a
// selection that cannot be used, InfrastructureError for a device that is not there.
PlannedRun plan_run(const RunRequest& request);

// Runs the planned cases and judges them: the report, with everything but dispatch filled in. A
// stopped run's report holds the cases that finished, settings.interrupted names the signal, and
// its exit code is 3; so is one that ended early because a case broke the CUDA context
// (settings.context_broken names it). Throws ContractError, before any case runs, for a --resume
// journal that cannot be read or is of another plan, and for a journal that cannot be written.
Report execute_run(const RunRequest& request, const PlannedRun& plan);

// The digest a journal is matched by: device, seed, every selected case id and the contracts'
// texts, in order.
std::string plan_sha256(const RunRequest& request, const PlannedRun& plan);

inline Report run_pipeline(const RunRequest& request) {
  return execute_run(request, plan_run(request));
}

}  // namespace samebits
