// The batch-invariant linear layer y = x w^T + bias as a torch-free launch API: the CUDA kernels
// (tensor cores for bf16 / f16, CUDA-core fmas for float32) and their CPU twin.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/common/status.h"

namespace samebits::kernels {

// y [rows, n] = x [rows, k] w [n, k]^T (+ bias [n]), in the order of invariant_linear_order.h.
// x row i at x + i * x_row_stride, w row j at w + j * w_row_stride (elements; the elements of a
// row adjacent); bias nullptr for none; out contiguous [rows, n]. Every tensor has `dtype`; every
// pointer lives on the device for the CUDA path and on the host for the twin.
struct LinearProblem {
  DType dtype = DType::f32;
  std::int64_t rows = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  const void* x = nullptr;
  std::int64_t x_row_stride = 0;
  const void* w = nullptr;
  std::int64_t w_row_stride = 0;
  const void* bias = nullptr;
  void* out = nullptr;
};

// Sizes both paths take: rows, n, k >= 0, n and k below 2^31, row strides >= k.
bool linear_problem_valid(const LinearProblem& p);

// Whether the CUDA path reads x and w as they are. float32 or K = 0: always. bf16 / f16 (16-byte
// copies): base addresses 16-byte aligned and row strides multiples of 8 elements; otherwise the
// caller copies them to such a buffer first (the binding does), which changes no bits.
bool linear_cuda_layout_ok(const LinearProblem& p);

// One launch on `stream` (none when rows or n is 0).
Status invariant_linear_cuda(const LinearProblem& p, cudaStream_t stream);

// The CPU twin: float32 bit for bit as the GPU; bf16 / f16 within linear_error_bound.h.
Status invariant_linear_cpu(const LinearProblem& p);

}  // namespace samebits::kernels
