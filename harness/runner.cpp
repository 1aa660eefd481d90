// Runs a planned list of cases on one device, one after another; a case that throws (out of memory,
// a CUDA error, an op refusing a shape) is recorded and the run goes on, unless its error left the
// CUDA context unusable: that case is recorded as crashed and the run ends after it.
#include "harness/runner.h"

#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <chrono>
#include <new>

#include "harness/case_runner.h"
#include "harness/expectations.h"
#include "harness/kernel_capture.h"
#include "harness/progress.h"
#include "reports/case_journal.h"

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
  } else {
    r.expected = spec.check->expected(spec.impl, spec.device);
  }
  r.comparison = spec.check->compare;
  return r;
}

// Runs one case into r: its verdict and evidence, or why it could not run.
void run_one(const CaseSpec& spec, const at::Device& device, const CaseOptions& case_options,
             CaseResult& r) {
  try {
    CaseRun run = run_case(spec, device, case_options);
    r.verdict = run.verdict;
    r.baseline = std::move(run.baseline);
    r.variant = std::move(run.variant);
    r.outputs = std::move(run.outputs);
    r.baseline_properties = std::move(run.baseline_properties);
    r.variant_properties = std::move(run.variant_properties);
  } catch (const Unsupported& e) {
    r.verdict = Verdict::skipped;
    r.reason = e.what();
  } catch (const c10::OutOfMemoryError& e) {
    r.verdict = Verdict::error;
    r.reason = fmt::format("out of memory: {}", e.what_without_backtrace());
    if (device.is_cuda()) c10::cuda::CUDACachingAllocator::emptyCache();
  } catch (const c10::Error& e) {
    r.verdict = Verdict::error;
    r.reason = e.what_without_backtrace();
  } catch (const std::bad_alloc& e) {
    r.verdict = Verdict::error;
    r.reason = fmt::format("out of memory on the host: {}", e.what());
  } catch (const std::exception& e) {
    r.verdict = Verdict::error;
    r.reason = e.what();
  }
}

}  // namespace

RunnerResult run_cases(const std::vector<CaseSpec>& cases, const at::Device& device,
                       const RunnerOptions& options) {
  RunnerResult out;
  std::vector<CaseResult>& results = out.cases;
  results.reserve(cases.size());
  Progress progress(static_cast<std::int64_t>(cases.size()), options.progress);
  // Kernel lists arrive from CUPTI in batches; hand them to their cases every so often.
  const auto collect_kernels = [&]() {
    if (!options.capture) return;
    auto by_tag = options.capture->take();
    for (auto& [tag, launches] : by_tag) {
      const std::size_t index = (tag - 1) / 2;
      if (index >= results.size()) continue;
      auto& into = tag % 2 == 1 ? results[index].baseline_kernels : results[index].variant_kernels;
      into = std::move(launches);
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
  const auto broken = [&](const at::Device& d) {
    return options.context_broken ? options.context_broken(d) : cuda_context_broken(d);
  };
  for (const auto& spec : cases) {
    // Once stopped, no case starts; those the journal decided (finished, faulted) are still taken.
    const bool stopped = options.stop && *options.stop != 0;
    if (options.finished) {
      const auto done = options.finished->find(spec.id);
      if (done != options.finished->end()) {
        results.push_back(done->second);
        resumed.push_back(true);
        progress.taken(spec.id);
        continue;
      }
    }
    const std::uint64_t number = results.size();
    CaseOptions case_options;
    case_options.tags = {options.capture, 2 * number + 1, 2 * number + 2};
    case_options.record_properties = options.record_properties;
    CaseResult r = case_skeleton(spec, options);
    const CaseFault* fault = nullptr;
    if (options.faults) {
      const auto it = options.faults->find(spec.id);
      if (it != options.faults->end()) fault = &it->second;
    }
    const bool faulted = fault != nullptr;
    if (stopped && !faulted) continue;
    const auto start = std::chrono::steady_clock::now();
    if (faulted) {
      r.verdict = fault->verdict;
      r.reason = fault->reason;
    } else {
      if (options.events) options.events->started(spec.id);
      run_one(spec, device, case_options, r);
      if (r.verdict == Verdict::error && broken(device)) {
        r.verdict = Verdict::crashed;
        r.reason = fmt::format("the CUDA context broke: {}", r.reason);
        out.context_broken_in = spec.id;
      }
    }
    r.duration_ms =
        faulted
            ? fault->duration_ms
            : std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                  .count();
    const bool surprising = r.verdict == Verdict::violated && r.expected == Expectation::holds;
    progress.step(spec.id, surprising);
    results.push_back(std::move(r));
    resumed.push_back(false);
    // After a broken context CUPTI has nothing more to give, and no later case may run: the rest
    // would fail the same way (or, with --isolate, run in a fresh process).
    if (!out.context_broken_in.empty()) break;
    if (options.journal_every_case) {
      collect_kernels();
      flush_journal();
    } else {
      if (results.size() % 128 == 0) collect_kernels();
      if (!options.capture || results.size() % 128 == 0) flush_journal();
    }
    if (options.events && !faulted) options.events->finished(spec.id);
  }
  if (out.context_broken_in.empty()) collect_kernels();
  flush_journal();
  if (options.events && !out.context_broken_in.empty()) {
    options.events->context_broken(out.context_broken_in);
  }
  progress.finish();
  return out;
}

}  // namespace samebits
