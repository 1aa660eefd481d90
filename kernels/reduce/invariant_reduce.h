// Batch-invariant sum and mean over one dim: the order of every add is a function of the reduced
// length alone (invariant_reduce_order.h), so strides, alignment, padding and batch never move a
// bit. Float32, float16 and bfloat16 inputs; float32 accumulation and output. No torch here.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernels/common/status.h"

namespace samebits::kernels {

// out[o * out_stride] = sum over l < length of x[o * stride_outer + l * stride_length (+ inner i)]:
// `outer` independent reductions of `length` elements each, for each of `inner` columns:
// element (o, l, i) lives at x + (o * stride_outer + l * stride_length + i * stride_inner)
// elements, and its result at out + o * out_stride_outer + i * out_stride_inner. Strides are in
// elements and may be anything (including 0 for length-1 dims).
struct ReduceProblem {
  const void* x = nullptr;
  DType dtype = DType::f32;
  std::int64_t outer = 1;
  std::int64_t length = 0;
  std::int64_t inner = 1;
  std::int64_t stride_outer = 0;
  std::int64_t stride_length = 1;
  std::int64_t stride_inner = 0;
  float* out = nullptr;
  std::int64_t out_stride_outer = 1;
  std::int64_t out_stride_inner = 0;
  bool mean = false;
};

// Bytes of device workspace invariant_reduce_cuda needs for this problem (0 when none).
std::size_t invariant_reduce_workspace_bytes(const ReduceProblem& p);

// The CUDA kernels; `workspace` holds chunk sums of long reductions. Asynchronous on `stream`.
Status invariant_reduce_cuda(const ReduceProblem& p, void* workspace, std::size_t workspace_bytes,
                             cudaStream_t stream);

// The CPU twin: the same adds in the same order, one after another.
Status invariant_reduce_cpu(const ReduceProblem& p);

// Variable-length rows packed end to end: row r is values[offsets[r] .. offsets[r + 1]), each
// reduced by the same order as a row of its own length. Offsets live where values live.
struct VarlenReduceProblem {
  const void* values = nullptr;
  DType dtype = DType::f32;
  const std::int64_t* offsets = nullptr;  // rows + 1 entries, non-decreasing
  std::int64_t rows = 0;
  std::int64_t max_length = 0;  // the longest row (sizes the launch)
  float* out = nullptr;         // rows results
  bool mean = false;
};
std::size_t invariant_reduce_varlen_workspace_bytes(const VarlenReduceProblem& p);
Status invariant_reduce_varlen_cuda(const VarlenReduceProblem& p, void* workspace,
                                    std::size_t workspace_bytes, cudaStream_t stream);
Status invariant_reduce_varlen_cpu(const VarlenReduceProblem& p);

}  // namespace samebits::kernels
