// What the two top-k kernels (radix_select.cu, warp_select.cu) share: where a row lies, how an
// element becomes its key, the -inf / -1 filler, the bitonic compare-exchange, and their launches.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include "kernels/topk/invariant_topk.h"
#include "kernels/topk/invariant_topk_order.h"

namespace samebits::kernels::topk_device {

using namespace topk_order;

constexpr unsigned kFullMask = 0xffffffffu;

struct Rows {
  const std::int64_t* offsets;
  std::int64_t row_stride;
  std::int64_t length;
  __device__ std::int64_t start(std::int64_t r) const {
    return offsets ? offsets[r] : r * row_stride;
  }
  __device__ std::int64_t size(std::int64_t r) const {
    return offsets ? offsets[r + 1] - offsets[r] : length;
  }
};

template <typename T>
__device__ __forceinline__ std::uint32_t float_bits(T v) {
  if constexpr (std::is_same_v<T, float>) {
    return __float_as_uint(v);
  } else if constexpr (std::is_same_v<T, __half>) {
    return __float_as_uint(__half2float(v));
  } else {
    return __float_as_uint(__bfloat162float(v));
  }
}

template <typename T>
__device__ __forceinline__ std::uint32_t key_at(const T* row, std::int64_t i) {
  return key_of_bits(float_bits(row[i]));
}

// The keys of row[first + u * Stride] for u < N, kNoElement at or past `length` (at least 1).
// The reads are clamped to the row's last element, not predicated: with no branch between them
// all N are in flight before the first key is computed (predicated, each waited for the one
// before it: Nsight Compute, bench/RESULTS.md 2026-11-26).
template <int N, int Stride, typename T>
__device__ __forceinline__ void read_keys(const T* row, int first, int length,
                                          std::uint32_t (&keys)[N]) {
#pragma unroll
  for (int u = 0; u < N; ++u) {
    const int i = first + u * Stride;
    keys[u] = float_bits(row[i < length ? i : length - 1]);
  }
#pragma unroll
  for (int u = 0; u < N; ++u)
    keys[u] = first + u * Stride < length ? key_of_bits(keys[u]) : kNoElement;
}

template <typename T>
__device__ __forceinline__ T negative_infinity() {
  if constexpr (std::is_same_v<T, float>) {
    return __uint_as_float(0xff800000u);
  } else if constexpr (std::is_same_v<T, __half>) {
    return __ushort_as_half(0xfc00);
  } else {
    return __ushort_as_bfloat16(0xff80);
  }
}

// Slot j of row r: the element of index `index`, or the -inf / -1 filler when index < 0.
template <typename T>
__device__ __forceinline__ void write_slot(const T* row, std::int64_t index, T* out_values,
                                           std::int64_t* out_indices, std::int64_t slot) {
  out_values[slot] = index >= 0 ? row[index] : negative_infinity<T>();
  out_indices[slot] = index;
}

// One compare-exchange of a bitonic network between element `i` (this lane's) and element
// i ^ stride (lane ^ stride's): the lower index keeps the smaller word in ascending runs.
__device__ __forceinline__ unsigned long long exchange(unsigned long long word, std::uint32_t i,
                                                       std::uint32_t stride, std::uint32_t size) {
  const unsigned long long other = __shfl_xor_sync(kFullMask, word, stride);
  const bool ascending = (i & size) == 0;
  const bool lower = (i & stride) == 0;
  return (lower == ascending) ? (word < other ? word : other) : (word > other ? word : other);
}

// The launches for element type T (invariant_topk_cuda has checked the problem against each
// kernel's limits); instantiated for float, __half and __nv_bfloat16 beside each kernel.
template <typename T>
Status radix_select(const TopkProblem& p, cudaStream_t stream);
template <typename T>
Status warp_select(const TopkProblem& p, cudaStream_t stream);
template <typename T>
Status split_select(const TopkProblem& p, cudaStream_t stream);
// Whether the GPU takes split_select's cooperative launch.
bool split_select_available();

}  // namespace samebits::kernels::topk_device
