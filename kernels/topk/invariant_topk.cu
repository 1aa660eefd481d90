// The CUDA entry point of the batched top-k: checks the problem against the chosen kernel's limits
// and launches radix_select (radix_select.cu) or warp_select (warp_select.cu). Both return each
// row's first k in the order of invariant_topk_order.h, the CPU twin's (invariant_topk_cpu.cpp).
#include "kernels/topk/invariant_topk.h"
#include "kernels/topk/topk_device.cuh"

namespace samebits::kernels {
namespace {

template <typename T>
Status launch(const TopkProblem& p, TopkAlgorithm algorithm, cudaStream_t stream) {
  return algorithm == TopkAlgorithm::warp_select ? topk_device::warp_select<T>(p, stream)
                                                 : topk_device::radix_select<T>(p, stream);
}

}  // namespace

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
  switch (p.dtype) {
    case DType::f32: return launch<float>(p, algorithm, stream);
    case DType::f16: return launch<__half>(p, algorithm, stream);
    case DType::bf16: return launch<__nv_bfloat16>(p, algorithm, stream);
  }
  return Status::unsupported_dtype;
}

}  // namespace samebits::kernels
