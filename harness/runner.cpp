// Runs a planned list of cases on one device, one after another; a case that throws (out of memory,
// a CUDA error, an op refusing a shape) is recorded and the run goes on.
#include "harness/runner.h"

#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <chrono>

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

}  // namespace

std::vector<CaseResult> run_cases(const std::vector<CaseSpec>& cases, const at::Device& device,
                                  const RunnerOptions& options) {
  std::vector<CaseResult> results;
  results.reserve(cases.size());
  Progress progress(static_cast<std::int64_t>(cases.size()), options.progress);
  std::string broken;  // why the device became unusable, once it has
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
  for (const auto& spec : cases) {
    if (options.stop && *options.stop != 0) break;
    if (options.finished) {
      const auto done = options.finished->find(spec.id);
      if (done != options.finished->end()) {
        results.push_back(done->second);
        resumed.push_back(true);
        progress.step(spec.id, false);
        continue;
      }
    }
    const std::uint64_t number = results.size();
    CaseOptions case_options;
    case_options.tags = {options.capture, 2 * number + 1, 2 * number + 2};
    case_options.record_properties = options.record_properties;
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
    const auto start = std::chrono::steady_clock::now();
    if (!broken.empty()) {
      r.verdict = Verdict::error;
      r.reason = broken;
    } else {
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
      } catch (const std::exception& e) {
        r.verdict = Verdict::error;
        r.reason = e.what();
      }
      if (r.verdict == Verdict::error && cuda_context_broken(device)) {
        broken = fmt::format("not run: the CUDA context broke in case {} ({})", spec.id, r.reason);
      }
    }
    r.duration_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const bool surprising = r.verdict == Verdict::violated && r.expected == Expectation::holds;
    progress.step(spec.id, surprising);
    results.push_back(std::move(r));
    resumed.push_back(false);
    if (results.size() % 128 == 0 && broken.empty()) collect_kernels();
    if (!options.capture || results.size() % 128 == 0) flush_journal();
  }
  if (broken.empty()) collect_kernels();
  flush_journal();
  progress.finish();
  return results;
}

}  // namespace samebits
