// The torch-free face of the invariant RMSNorm: the problem (rows of length D, a row stride), and
// its CUDA and CPU entry points, both following invariant_norm_order.h.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/common/status.h"

namespace samebits::kernels {

struct NormProblem {
  DType dtype = DType::f32;  // of x, residual, w, y and h alike
  std::int64_t rows = 0, d = 0;
  const void* x = nullptr;
  std::int64_t x_stride = 0;       // elements between rows; the row itself contiguous
  const void* residual = nullptr;  // add_rms_norm: [rows, d] with residual_stride, else null
  std::int64_t residual_stride = 0;
  const void* w = nullptr;  // [d], contiguous
  float eps = 0;
  void* y = nullptr;  // [rows, d] contiguous
  void* h = nullptr;  // add_rms_norm: x + residual, [rows, d] contiguous
};

Status invariant_norm_cuda(const NormProblem& p, cudaStream_t stream);
// Rows [row_begin, row_end) (the binding spreads row ranges over threads; a row's bits do not
// depend on which thread or range computes it).
Status invariant_norm_cpu(const NormProblem& p, std::int64_t row_begin, std::int64_t row_end);

}  // namespace samebits::kernels
