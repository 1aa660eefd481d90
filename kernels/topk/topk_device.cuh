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

// Where row r lies. Packed rows are guarded (kernels/common/row_guard.h): a flawed row reads as
// empty at the tensor's start (so no kernel reads it), and the kernels mark its slots (mark_row).
struct Rows {
  const std::int64_t* offsets;
  std::int64_t row_stride;
  std::int64_t length;
  std::int64_t total;
  std::int64_t max_length;
  std::int32_t* status;
  bool guarded;
  explicit Rows(const TopkProblem& p)
      : offsets(p.offsets),
        row_stride(p.row_stride),
        length(p.length),
        total(p.total),
        max_length(p.max_length),
        status(p.status),
        guarded(!p.unguarded_for_tests) {}
  __device__ GuardedRow row(std::int64_t r) const {
    return offsets ? guarded_row(offsets, r, total, max_length, guarded)
                   : GuardedRow{r * row_stride, length, 0};
  }
  __device__ std::int32_t flaws(std::int64_t r) const { return row(r).flaws; }
  __device__ std::int64_t start(std::int64_t r) const { return row(r).start; }
  __device__ std::int64_t size(std::int64_t r) const { return row(r).length; }
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

// A constant of T, given by its bits in each element type.
template <typename T>
__device__ __forceinline__ T constant_of(std::uint32_t f32, unsigned short f16,
                                         unsigned short bf16) {
  if constexpr (std::is_same_v<T, float>) {
    return __uint_as_float(f32);
  } else if constexpr (std::is_same_v<T, __half>) {
    return __ushort_as_half(f16);
  } else {
    return __ushort_as_bfloat16(bf16);
  }
}

template <typename T>
__device__ __forceinline__ T negative_infinity() {
  return constant_of<T>(0xff800000u, 0xfc00, 0xff80);
}

template <typename T>
__device__ __forceinline__ T quiet_nan() {
  return constant_of<T>(0x7fc00000u, 0x7e00, 0x7fc0);
}

// A flawed row r (flaws != 0): slots first, first + step, ... < k get NaN and index -1; the thread
// of slot 0 ORs the flaws into the call's status.
template <typename T>
__device__ __forceinline__ void mark_row(const Rows& rows, std::int64_t r, std::int64_t k,
                                         std::int32_t flaws, std::int64_t first, std::int64_t step,
                                         T* out_values, std::int64_t* out_indices) {
  for (std::int64_t j = first; j < k; j += step) {
    out_values[r * k + j] = quiet_nan<T>();
    out_indices[r * k + j] = -1;
  }
  if (first == 0 && rows.status) atomicOr(rows.status, flaws);
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
