// The CUDA entry point of the batched top-k: checks the problem against the chosen kernel's limits
// and launches radix_select, warp_select or split_select (each in its own .cu). Each returns every
// row's first k in the order of invariant_topk_order.h, the CPU twin's (invariant_topk_cpu.cpp).
#include "kernels/topk/invariant_topk.h"
#include "kernels/topk/topk_device.cuh"

namespace samebits::kernels {
namespace {

template <typename T>
Status launch(const TopkProblem& p, TopkAlgorithm algorithm, cudaStream_t stream) {
  switch (algorithm) {
    case TopkAlgorithm::warp_select: return topk_device::warp_select<T>(p, stream);
    case TopkAlgorithm::split_select: return topk_device::split_select<T>(p, stream);
    default: return topk_device::radix_select<T>(p, stream);
  }
}

}  // namespace

bool topk_prefers_split(const TopkProblem& p) {
  const bool long_rows =
      (p.max_length > kSplitSelectAbove && p.rows <= kSplitSelectAutoRows) ||
      (p.max_length > kSplitSelectLongAbove && p.rows <= kSplitSelectLongAutoRows);
  return p.k <= kSplitSelectMaxK && long_rows && topk_device::split_select_available();
}

TopkAlgorithm choose_topk_algorithm(const TopkProblem& p) {
  if (p.algorithm != TopkAlgorithm::automatic) return p.algorithm;
  if (p.k <= kWarpSelectMaxK && p.max_length <= kWarpSelectMaxLength)
    return TopkAlgorithm::warp_select;
  // (the workspace first: a call without one, as on the CPU, asks the CUDA runtime nothing)
  if (p.workspace && topk_prefers_split(p) && p.workspace_bytes >= topk_split_workspace_bytes(p))
    return TopkAlgorithm::split_select;
  return TopkAlgorithm::radix_select;
}

Status invariant_topk_cuda(const TopkProblem& p, cudaStream_t stream) {
  if (!topk_problem_valid(p)) return Status::invalid_argument;
  const TopkAlgorithm algorithm = choose_topk_algorithm(p);
  if (algorithm == TopkAlgorithm::warp_select &&
      (p.k > kWarpSelectMaxK || p.max_length > kWarpSelectMaxLength)) {
    return Status::invalid_argument;
  }
  if (algorithm == TopkAlgorithm::radix_select && p.k > kRadixSelectMaxK) {
    return Status::invalid_argument;
  }
  if (algorithm == TopkAlgorithm::split_select) {
    const std::int64_t bytes = topk_split_workspace_bytes(p);
    if (bytes == 0) return Status::invalid_argument;
    if (!p.workspace || p.workspace_bytes < bytes) return Status::workspace_too_small;
  }
  if (p.rows == 0) return Status::ok;
  switch (p.dtype) {
    case DType::f32: return launch<float>(p, algorithm, stream);
    case DType::f16: return launch<__half>(p, algorithm, stream);
    case DType::bf16: return launch<__nv_bfloat16>(p, algorithm, stream);
  }
  return Status::unsupported_dtype;
}

}  // namespace samebits::kernels
