// Runs a planned list of cases on one device, several at a time where asked, recorded in plan order;
// a case that throws (out of memory, a CUDA error, an op refusing a shape) is recorded and the run
// goes on, unless its error left the CUDA context unusable: the run ends after that case.
#include "harness/runner.h"

#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <new>
#include <shared_mutex>

#include "harness/case_runner.h"
#include "harness/expectations.h"
#include "harness/kernel_capture.h"
#include "harness/ordered_pool.h"
#include "harness/progress.h"
#include "reports/model/case_journal.h"

namespace samebits {
namespace {

// After a CUDA error the context may be unusable; every later case would fail the same way.
bool cuda_context_broken(const at::Device& device) {
  if (!device.is_cuda()) return false;
  const cudaError_t sticky = cudaDeviceSynchronize();
  return sticky != cudaSuccess && sticky != cudaErrorMemoryAllocation;
}

// The case's identity and expectation, before it runs.
CaseResult case_skeleton(const CaseSpec& spec, const RunnerOptions& options) {
  CaseResult r;
  r.id = spec.id;
  r.index = spec.index;
  r.contract = spec.contract->name;
  r.check = spec.check->name;
  r.kind = spec.check->kind;
  r.impl = spec.impl;
  r.device = spec.device;
  r.params = spec.resolved.values();
  r.seed = spec.seed;
  if (options.expectations) {
    const ResolvedExpectation e =
        options.expectations->resolve(*spec.contract, *spec.check, spec.impl, spec.device);
    r.expected = e.expected;
    r.expected_from = e.from;
    r.observed_on = e.observed_on;
    r.recorded_varying = e.varying;
  } else {
    r.expected = spec.check->expected(spec.impl, spec.device);
  }
  r.comparison = spec.check->compare;
  return r;
}

// Runs one case into r: its verdict and evidence, or why it could not run.
// Returns whether the case ran out of memory.
bool run_one(const CaseSpec& spec, const at::Device& device, const CaseOptions& case_options,
             CaseResult& r) {
  try {
    CaseRun run = run_case(spec, device, case_options);
    r.verdict = run.verdict;
    r.baseline = std::move(run.baseline);
    r.variant = std::move(run.variant);
    r.outputs = std::move(run.outputs);
    r.baseline_properties = std::move(run.baseline_properties);
    r.variant_properties = std::move(run.variant_properties);
    return false;
  } catch (const Unsupported& e) {
    r.verdict = Verdict::skipped;
    r.reason = e.what();
  } catch (const c10::OutOfMemoryError& e) {
    r.verdict = Verdict::error;
    r.reason = fmt::format("out of memory: {}", e.what_without_backtrace());
    if (device.is_cuda()) c10::cuda::CUDACachingAllocator::emptyCache();
    return true;
  } catch (const c10::Error& e) {
    r.verdict = Verdict::error;
    r.reason = e.what_without_backtrace();
  } catch (const std::bad_alloc& e) {
    r.verdict = Verdict::error;
    r.reason = fmt::format("out of memory on the host: {}", e.what());
    return true;
  } catch (const std::exception& e) {
    r.verdict = Verdict::error;
    r.reason = e.what();
  }
  return false;
}

// Each working thread of a CUDA run: the run's device, and a stream of its own so that cases
// overlap on the device too (a high-priority pool stream, never one that a check's "second
// stream" draws from the low-priority pool).
std::shared_ptr<void> cuda_thread_setup(c10::DeviceIndex index) {
  struct Guards {
    c10::cuda::CUDAGuard device;
    c10::cuda::CUDAStreamGuard stream;
    explicit Guards(c10::DeviceIndex i)
        : device(i), stream(c10::cuda::getStreamFromPool(/*isHighPriority=*/true, i)) {}
  };
  return std::make_shared<Guards>(index);
}

}  // namespace

RunnerResult run_cases(const std::vector<CaseSpec>& cases, const at::Device& device,
                       const RunnerOptions& options) {
  RunnerResult out;
  std::vector<CaseResult>& results = out.cases;
  results.reserve(cases.size());
  Progress progress(static_cast<std::int64_t>(cases.size()), options.progress);
  // A child of `run --isolate` tells its parent which case is under way: one at a time.
  const int jobs = options.events ? 1 : std::max(1, options.jobs);
  // What each planned case became, filled by whichever thread works it.
  struct Slot {
    bool present = false;  // false: not started (stopped)
    bool resumed = false;  // taken from the journal: never journaled again
    bool broke_context = false;
    CaseResult result;
  };
  std::vector<Slot> slots(cases.size());
  // Under several jobs every case runs with a shared hold on this; a case that ran out of memory
  // runs once more holding it alone, so its outcome is the one it has run by itself.
  std::shared_mutex alone;
  const auto broken = [&](const at::Device& d) {
    return options.context_broken ? options.context_broken(d) : cuda_context_broken(d);
  };
  const auto work = [&](std::size_t index) {
    const CaseSpec& spec = cases[index];
    Slot& slot = slots[index];
    if (options.finished) {
      const auto done = options.finished->find(spec.id);
      if (done != options.finished->end()) {
        slot.result = done->second;
        slot.result.index = spec.index;  // a journal of an earlier samebits may not record it
        slot.present = slot.resumed = true;
        return;
      }
    }
    const CaseFault* fault = nullptr;
    if (options.faults) {
      const auto it = options.faults->find(spec.id);
      if (it != options.faults->end()) fault = &it->second;
    }
    // Once stopped, no case starts; those the journal decided (finished, faulted) are still taken.
    const bool stopped = options.stop && *options.stop != 0;
    if (stopped && !fault) return;
    slot.present = true;
    CaseResult& r = slot.result;
    r = case_skeleton(spec, options);
    if (fault) {
      r.verdict = fault->verdict;
      r.reason = fault->reason;
      r.duration_ms = fault->duration_ms;
      return;
    }
    // Kernel capture tags by plan index: each case's launches, whichever thread made them.
    CaseOptions case_options;
    case_options.tags = {options.capture, 2 * index + 1, 2 * index + 2};
    case_options.record_properties = options.record_properties;
    const auto start = std::chrono::steady_clock::now();
    if (options.events) options.events->started(spec.id);
    if (jobs == 1) {
      run_one(spec, device, case_options, r);
    } else {
      bool out_of_memory = false;
      {
        const std::shared_lock<std::shared_mutex> hold(alone);
        out_of_memory = run_one(spec, device, case_options, r);
      }
      if (out_of_memory) {
        const std::unique_lock<std::shared_mutex> hold(alone);
        if (device.is_cuda()) c10::cuda::CUDACachingAllocator::emptyCache();
        r = case_skeleton(spec, options);
        run_one(spec, device, case_options, r);
      }
    }
    if (r.verdict == Verdict::error && broken(device)) {
      r.verdict = Verdict::crashed;
      r.reason = jobs == 1 ? fmt::format("the CUDA context broke: {}", r.reason)
                           : fmt::format("the CUDA context broke: {} ({} cases were running at "
                                         "once: --jobs 1 or --isolate names the case that broke it)",
                                         r.reason, jobs);
      slot.broke_context = true;
    }
    r.duration_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  // Kernel lists arrive from CUPTI in batches, a case's launches possibly split over two (cases
  // under way on other threads): they gather by tag until their case is journaled.
  std::unordered_map<std::uint64_t, std::vector<KernelLaunch>> launches;
  std::vector<std::size_t> plan_index;  // of each result
  std::size_t kernels_in = 0;           // results [0, kernels_in) have their kernels
  const auto collect_kernels = [&]() {
    if (!options.capture) return;
    for (auto& [tag, more] : options.capture->take()) merge_launches(launches[tag], std::move(more));
    for (; kernels_in < results.size(); ++kernels_in) {
      const std::uint64_t tag = 2 * plan_index[kernels_in] + 1;
      for (const std::uint64_t t : {tag, tag + 1}) {
        const auto it = launches.find(t);
        if (it == launches.end()) continue;
        (t == tag ? results[kernels_in].baseline_kernels : results[kernels_in].variant_kernels) =
            std::move(it->second);
        launches.erase(it);
      }
    }
  };
  // Results [journaled, size) are not in the journal yet; resumed ones never go there again.
  std::size_t journaled = 0;
  std::vector<bool> resumed;
  const auto flush_journal = [&]() {
    if (!options.journal) return;
    for (; journaled < results.size(); ++journaled) {
      if (!resumed[journaled]) options.journal->append(results[journaled]);
    }
  };
  const auto commit = [&](std::size_t index) {
    Slot& slot = slots[index];
    if (!slot.present) return true;
    CaseResult& r = slot.result;
    if (slot.resumed) {
      progress.taken(r.id);
    } else {
      const bool surprising = r.verdict == Verdict::violated && r.expected == Expectation::holds;
      progress.step(r.id, surprising);
    }
    const std::string id = r.id;
    const bool ran = !slot.resumed && !(options.faults && options.faults->count(id));
    if (slot.broke_context) out.context_broken_in = id;
    results.push_back(std::move(r));
    resumed.push_back(slot.resumed);
    plan_index.push_back(index);
    if (slot.resumed) return true;
    // After a broken context CUPTI has nothing more to give, and no later case may run: the rest
    // would fail the same way (or, with --isolate, run in a fresh process).
    if (!out.context_broken_in.empty()) return false;
    if (options.journal_every_case) {
      collect_kernels();
      flush_journal();
    } else {
      if (results.size() % 128 == 0) collect_kernels();
      if (!options.capture || results.size() % 128 == 0) flush_journal();
    }
    if (options.events && ran) options.events->finished(id);
    return true;
  };
  OrderedPool pool;
  pool.jobs = jobs;
  // Cases an op must run one at a time form a lane per contract: a contract's cases share shapes
  // (and so per-thread plan caches), other contracts' lanes run beside them.
  std::map<std::string, int> lane_of_contract;
  std::vector<int> lanes(cases.size(), -1);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!cases[i].op->serial(cases[i].impl)) continue;
    lanes[i] = lane_of_contract
                   .emplace(cases[i].contract->name, static_cast<int>(lane_of_contract.size()))
                   .first->second;
  }
  pool.lane = [&](std::size_t i) { return lanes[i]; };
  if (jobs > 1 && device.is_cuda()) {
    const c10::DeviceIndex index = device.has_index() ? device.index() : c10::cuda::current_device();
    pool.thread_setup = [index] { return cuda_thread_setup(index); };
  }
  run_ordered(cases.size(), pool, work, commit);
  if (out.context_broken_in.empty()) collect_kernels();
  flush_journal();
  if (options.events && !out.context_broken_in.empty()) {
    options.events->context_broken(out.context_broken_in);
  }
  progress.finish();
  return out;
}

}  // namespace samebits
