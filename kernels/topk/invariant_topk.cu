// The CUDA entry point of the batched top-k: checks the problem against the chosen kernel's limits
// and launches radix_select (radix_select.cu) or warp_select (warp_select.cu). Both return each
// row's first k in the order of invariant_topk_order.h, the CPU twin's (invariant_topk_cpu.cpp).
#include "kernels/topk/invariant_topk.h"
#include "kernels/topk/topk_device.cuh"

namespace samebits::kernels {

TopkAlgorithm choose_topk_algorithm(const TopkProblem& p) {
  if (p.algorithm != TopkAlgorithm::automatic) return p.algorithm;
  return p.k <= kWarpSelectMaxK && p.max_length <= kWarpSelectMaxLength
             ? TopkAlgorithm::warp_select
             : TopkAlgorithm::radix_select;
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
  if (p.rows == 0) return Status::ok;
  return algorithm == TopkAlgorithm::warp_select ? topk_device::warp_select(p, stream)
                                                 : topk_device::radix_select(p, stream);
}

}  // namespace samebits::kernels
