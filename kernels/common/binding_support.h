// What every kernel family's torch binding shares: the kernels' dtype for a tensor and a status
// turned into a torch error. Bindings only; kernels never include this (or torch).
#pragma once

#include <ATen/ATen.h>
#include <cuda_runtime_api.h>

#include <string>

#include "kernels/common/status.h"

namespace samebits {

// float32, float16 or bfloat16; anything else fails naming `op` and the accepted dtypes.
inline kernels::DType kernel_dtype(const at::Tensor& x, const char* op) {
  switch (x.scalar_type()) {
    case at::kFloat: return kernels::DType::f32;
    case at::kHalf: return kernels::DType::f16;
    case at::kBFloat16: return kernels::DType::bf16;
    default:
      TORCH_CHECK(false, "samebits.", op, " takes float32, float16 or bfloat16, not ",
                  x.scalar_type());
  }
}

// Kernels leave a CUDA error in place (cudaPeekAtLastError) for this to report and clear.
inline void check_kernel_status(kernels::Status s, const char* what) {
  TORCH_CHECK(s == kernels::Status::ok, "samebits ", what, " failed: ", kernels::to_string(s),
              s == kernels::Status::cuda_error
                  ? std::string(": ") + cudaGetErrorString(cudaGetLastError())
                  : "");
}

}  // namespace samebits
