// How the attention kernels read a 16-bit element (exactly, as float32) and where the backward
// keeps D per row: shared by the exact forward, the exact backward and the tensor-core backward.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/attention/invariant_attention.h"

namespace samebits::kernels::attention_elements {

// Element `index` of a bf16 or f16 tensor as the float32 it is exactly (bf16: its bits are a
// float's top half; f16: the hardware's exact widening).
template <DType T>
__device__ __forceinline__ float load(const void* base, std::int64_t index) {
  const std::uint16_t bits = static_cast<const std::uint16_t*>(base)[index];
  if constexpr (T == DType::bf16) {
    return __uint_as_float(static_cast<unsigned>(bits) << 16);
  } else {
    return __half2float(__ushort_as_half(bits));
  }
}

// The backward's D workspace: one float per (sequence b, query row i < max_q_len, head h).
__device__ __forceinline__ std::int64_t delta_index(const AttentionProblem& p, std::int64_t b,
                                                    std::int64_t i, std::int64_t h) {
  return (b * p.max_q_len + i) * p.heads + h;
}

}  // namespace samebits::kernels::attention_elements
