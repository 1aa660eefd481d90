// The 16-bit elements of the bf16 / f16 linear kernels: widened exactly to float32, and the one
// rounding of an output back to its dtype (to nearest even), shared by every tensor-core kernel.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/common/status.h"

namespace samebits::kernels::linear_elements {

template <DType T>
__device__ __forceinline__ float to_float(std::uint16_t h) {
  if constexpr (T == DType::bf16)
    return __bfloat162float(__ushort_as_bfloat16(h));
  else
    return __half2float(__ushort_as_half(h));
}

template <DType T>
__device__ __forceinline__ std::uint16_t to_dtype(float v) {
  if constexpr (T == DType::bf16)
    return __bfloat16_as_ushort(__float2bfloat16_rn(v));
  else
    return __half_as_ushort(__float2half_rn(v));
}

}  // namespace samebits::kernels::linear_elements
