// Batch-invariant softmax and log_softmax over rows: every bit of a row's result is a function of
// the row's values and length alone (invariant_softmax_order.h), never of the row count, the row's
// position, stride or alignment. Float32, float16, bfloat16 in; float32 math. No torch here.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/common/status.h"

namespace samebits::kernels {

// rows rows of length elements: element i of row r at x + r * row_stride + i (elements), its
// result at out + r * out_row_stride + i, in out_dtype (the input's dtype or float32).
struct SoftmaxProblem {
  const void* x = nullptr;
  DType dtype = DType::f32;
  std::int64_t rows = 0;
  std::int64_t length = 0;
  std::int64_t row_stride = 0;
  void* out = nullptr;
  DType out_dtype = DType::f32;
  std::int64_t out_row_stride = 0;
  bool log = false;  // log_softmax
};

// The CUDA kernels (a warp, a block or a cluster of blocks per row, by length alone); asynchronous
// on `stream`.
Status invariant_softmax_cuda(const SoftmaxProblem& p, cudaStream_t stream);

// The CPU twin: the same operations in the same order, one after another.
Status invariant_softmax_cpu(const SoftmaxProblem& p);

// The order header's exp and log as the CPU twin compiles them, and on the GPU over n device
// floats (out_exp[i] = exp_invariant(x[i]), out_log[i] = log_invariant(x[i])): tests compare
// them with float64 and with each other.
float softmax_exp_cpu(float x);
float softmax_log_cpu(float x);
Status softmax_exp_log_cuda(const float* x, float* out_exp, float* out_log, std::int64_t n,
                            cudaStream_t stream);

// Checks of what the kernels rely on (softmax_device_checks.cu): out[i] = the kernels' max of
// a[i] and b[i]; and, over all 2^32 float32 patterns, how many non-NaN floats the hardware rounds
// to bfloat16 (counts[0]) and float16 (counts[1]) otherwise than the order header, with the
// lowest such pattern in first[0] and first[1] (device memory; counts start at 0, first at
// 0xffffffff).
Status softmax_max_pairs_cuda(const float* a, const float* b, float* out, std::int64_t n,
                              cudaStream_t stream);
Status softmax_rounding_mismatches_cuda(unsigned long long* counts, unsigned* first,
                                        cudaStream_t stream);

}  // namespace samebits::kernels
