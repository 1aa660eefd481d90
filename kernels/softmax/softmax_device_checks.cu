// The softmax kernels' building blocks run on the GPU for the tests: exp and log over given floats,
// fmaxf over given pairs, and the hardware's 16-bit rounding against the order header's, all 2^32.
// Each stands for a claim a kernel relies on to give the CPU twin's bits (softmax_device.cuh).
#include <algorithm>
#include <cstdint>

#include "kernels/common/cuda_status.h"
#include "kernels/softmax/invariant_softmax.h"
#include "kernels/softmax/invariant_softmax_order.h"
#include "kernels/softmax/softmax_device.cuh"

namespace samebits::kernels {
namespace {

using namespace softmax_order;
using namespace softmax_device;

// exp as the kernels compute it: exp_normal on [-86, 0] (where rows voted onto it take it),
// exp_nonpositive below and at NaN, exp_device above 0.
__global__ void exp_log_kernel(const float* x, float* out_exp, float* out_log, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const float v = x[i];
    out_exp[i] = exp_normal_range(v) && v <= 0.0f ? exp_normal(v)
                 : (v <= 0.0f || is_nan(v))       ? exp_nonpositive(v)
                                                  : exp_device(v);
    out_log[i] = log_invariant(v);
  }
}

__global__ void max_pairs_kernel(const float* a, const float* b, float* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    out[i] = max_device(a[i], b[i]);
  }
}

// Every non-NaN float32 bit pattern: the hardware's bfloat16 and float16 (pack2) against
// float_to_bfloat16_bits and float_to_float16_bits. counts[0] and [1]: mismatches; first[0] and
// [1]: the lowest mismatching pattern (0xffffffff where none).
__global__ void rounding_kernel(unsigned long long* counts, unsigned* first) {
  const std::uint64_t total = std::uint64_t{1} << 32;
  for (std::uint64_t b = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; b < total;
       b += std::uint64_t{gridDim.x} * blockDim.x) {
    const float f = __uint_as_float(static_cast<std::uint32_t>(b));
    if (is_nan(f)) continue;
    const Bf16* bf = nullptr;
    const F16* h = nullptr;
    const std::uint32_t hw_bf = pack2(f, 0.0f, bf) & 0xffffu;
    const std::uint32_t hw_h = pack2(f, 0.0f, h) & 0xffffu;
    if (hw_bf != float_to_bfloat16_bits(f)) {
      atomicAdd(&counts[0], 1ull);
      atomicMin(&first[0], static_cast<unsigned>(b));
    }
    if (hw_h != float_to_float16_bits(f)) {
      atomicAdd(&counts[1], 1ull);
      atomicMin(&first[1], static_cast<unsigned>(b));
    }
  }
}

unsigned grid_for(std::int64_t n) {
  return static_cast<unsigned>(std::min<std::int64_t>((n + 255) / 256, 4096));
}

}  // namespace

Status softmax_exp_log_cuda(const float* x, float* out_exp, float* out_log, std::int64_t n,
                            cudaStream_t stream) {
  if (!x || !out_exp || !out_log || n < 0) return Status::invalid_argument;
  if (n == 0) return Status::ok;
  exp_log_kernel<<<grid_for(n), 256, 0, stream>>>(x, out_exp, out_log, n);
  return launch_status();
}

Status softmax_max_pairs_cuda(const float* a, const float* b, float* out, std::int64_t n,
                              cudaStream_t stream) {
  if (!a || !b || !out || n < 0) return Status::invalid_argument;
  if (n == 0) return Status::ok;
  max_pairs_kernel<<<grid_for(n), 256, 0, stream>>>(a, b, out, n);
  return launch_status();
}

Status softmax_rounding_mismatches_cuda(unsigned long long* counts, unsigned* first,
                                        cudaStream_t stream) {
  if (!counts || !first) return Status::invalid_argument;
  rounding_kernel<<<4096, 256, 0, stream>>>(counts, first);
  return launch_status();
}

}  // namespace samebits::kernels
