// What the reduction kernels (chunk_sums.cu, row_sums.cu, wide_rows.cu, medium_rows.cu,
// short_rows.cu, column_sums.cu, short_columns.cu, long_columns.cu) share: loads, index math,
// Source, Sink, trees.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include "kernels/common/cuda_status.h"
#include "kernels/reduce/invariant_reduce.h"
#include "kernels/reduce/invariant_reduce_order.h"

namespace samebits::kernels::reduce_device {

using namespace reduce_order;

// Each kernel follows invariant_reduce_order.h exactly; they differ only in how threads are mapped
// to the order's lanes, never in which values meet in an add. An empty lane holds +0.0, and adding
// +0.0 changes no lane (a lane sum starts at +0.0 and so is never -0.0): kernels may skip lanes,
// chunks and padding that the order fills with zeros.

template <typename T>
__device__ __forceinline__ float to_float(T v);
template <>
__device__ __forceinline__ float to_float<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ float to_float<__half>(__half v) {
  return __half2float(v);
}
template <>
__device__ __forceinline__ float to_float<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

// A 16-bit value from its bits (little-endian halves of a 32-bit word), as float.
template <typename T>
__device__ __forceinline__ float from_bits(unsigned int bits) {
  if constexpr (sizeof(T) == 2 && std::is_same_v<T, __half>) {
    return __half2float(__ushort_as_half(static_cast<unsigned short>(bits)));
  } else {
    return __bfloat162float(__ushort_as_bfloat16(static_cast<unsigned short>(bits)));
  }
}

// The 16-bit values packed two to a 32-bit word in `words` (low half first), widened to float and
// passed to f(i, value) in memory order, i = 0 .. 2 kWords - 1 (each widened just before its use).
template <typename T, int kWords, typename F>
__device__ __forceinline__ void widen(const unsigned int (&words)[kWords], F&& f) {
#pragma unroll
  for (int i = 0; i < kWords; ++i) {
    f(2 * i, from_bits<T>(words[i] & 0xffffu));
    f(2 * i + 1, from_bits<T>(words[i] >> 16));
  }
}

// Four consecutive elements at an address aligned to their size (16 or 8 bytes): one vector load.
template <typename T>
__device__ __forceinline__ void load4_aligned(const T* p, float (&v)[4]) {
  if constexpr (sizeof(T) == 4) {
    const float4 q = *reinterpret_cast<const float4*>(p);
    v[0] = q.x;
    v[1] = q.y;
    v[2] = q.z;
    v[3] = q.w;
  } else {
    const uint2 q = *reinterpret_cast<const uint2*>(p);
    widen<T>({q.x, q.y}, [&](int i, float value) { v[i] = value; });
  }
}

// Four consecutive elements, as one vector load when they are contiguous and aligned for it.
template <typename T>
__device__ __forceinline__ void load4(const T* p, std::int64_t stride, float (&v)[4]) {
  if (stride == 1 && reinterpret_cast<std::uintptr_t>(p) % (4 * sizeof(T)) == 0) {
    load4_aligned(p, v);
  } else {
#pragma unroll
    for (int j = 0; j < 4; ++j) v[j] = to_float(p[j * stride]);
  }
}

// Column kernels (column_sums.cu, long_columns.cu) read kColumns<T> adjacent reductions as one
// 16-byte word per row: 4 float32 or 8 16-bit values.
template <typename T>
constexpr int kColumns = 16 / sizeof(T);

// One row's kColumns<T> adjacent values as a 16-byte word, widened to float32.
template <typename T>
using ColumnWord = std::conditional_t<sizeof(T) == 4, float4, uint4>;
template <typename T>
__device__ __forceinline__ void widen_columns(ColumnWord<T> word, float (&v)[kColumns<T>]) {
  if constexpr (sizeof(T) == 4) {
    v[0] = word.x;
    v[1] = word.y;
    v[2] = word.z;
    v[3] = word.w;
  } else {
    widen<T>({word.x, word.y, word.z, word.w}, [&](int i, float value) { v[i] = value; });
  }
}

// a / b and a % b for non-negative a and positive b: in 32 bits when both fit (a 64-bit division
// is a long software routine, paid once per warp per chunk), in 64 bits otherwise.
struct Quotient {
  std::int64_t q, r;
};
__device__ __forceinline__ Quotient divide(std::int64_t a, std::int64_t b) {
  if (b == 1) return {a, 0};
  if (((a | b) >> 32) == 0) {
    const auto a32 = static_cast<std::uint32_t>(a), b32 = static_cast<std::uint32_t>(b);
    const std::uint32_t q32 = a32 / b32;
    return {q32, a32 - q32 * b32};
  }
  return {a / b, a % b};
}

// Where reduction r's elements start and how many there are: for a ReduceProblem flattened to
// r = o * inner + i (strided), for packed rows (offsets), or for dense rows of partial sums.
struct Source {
  std::int64_t inner;
  std::int64_t stride_outer, stride_inner, stride_length;
  const std::int64_t* offsets;  // rows + 1 entries, or null
  std::int64_t n;               // the length of every row when offsets is null
  __device__ std::int64_t start(std::int64_t r) const {
    if (offsets) return offsets[r];
    const Quotient oi = divide(r, inner);
    return oi.q * stride_outer + oi.r * stride_inner;
  }
  __device__ std::int64_t length(std::int64_t r) const {
    return offsets ? offsets[r + 1] - offsets[r] : n;
  }
};

// Where results go: a final value (divided by the row's own length for a mean), or a chunk sum.
struct Sink {
  float* out;
  std::int64_t inner, stride_outer, stride_inner;
  bool mean;
  const std::int64_t* mean_offsets;  // the original rows' offsets (varlen), or null
  std::int64_t mean_n;               // the original length otherwise
  __device__ void write(std::int64_t r, float sum) const {
    if (mean) {
      const std::int64_t n = mean_offsets ? mean_offsets[r + 1] - mean_offsets[r] : mean_n;
      sum = __fdiv_rn(sum, static_cast<float>(n));
    }
    const Quotient oi = divide(r, inner);
    out[oi.q * stride_outer + oi.r * stride_inner] = sum;
  }
};

// Lane t of a 256-lane chunk of n <= 4096 elements (n <= 1024 when Steps is 1): its sum of up to
// 16 of them, in order k, then j.
template <typename T, int Steps = kSteps>
__device__ __forceinline__ float lane_sum(const T* row, std::int64_t stride, std::int64_t n,
                                          int t) {
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < Steps; ++k) {
    const std::int64_t p = std::int64_t{k} * kStepSpan + kVector * t;
    if (p + kVector <= n) {
      float v[4];
      load4(row + p * stride, stride, v);
#pragma unroll
      for (int j = 0; j < 4; ++j) acc = __fadd_rn(acc, v[j]);
    } else {
      for (int j = 0; j < 4 && p + j < n; ++j)
        acc = __fadd_rn(acc, to_float(row[(p + j) * stride]));
    }
  }
  return acc;
}

// The tree over 32 lanes held by one warp: lane t < s adds lane t + s, for s = 16..1. Lanes >= s
// compute values nobody reads.
__device__ __forceinline__ float warp_tree(float v) {
#pragma unroll
  for (int s = 16; s >= 1; s /= 2) v = __fadd_rn(v, __shfl_down_sync(0xffffffffu, v, s));
  return v;
}

constexpr int kWarpsPerBlock = 8;             // of the chunk, row and short kernels
constexpr int kLanesPerThread = kLanes / 32;  // 8: warp thread w holds lanes w + 32 m, m = 0..7

// True when a chunk's elements are contiguous and its start is aligned for four-element loads.
template <typename T>
__device__ __forceinline__ bool vector_ready(const T* chunk, std::int64_t stride) {
  return stride == 1 && reinterpret_cast<std::uintptr_t>(chunk) % (4 * sizeof(T)) == 0;
}

// Lanes w + 32 m (m = 0..7) of a contiguous, aligned chunk of len <= 4096 elements (kFull: len
// is 4096): the reads of two steps (16 four-element loads, predicated on p < len) are issued
// before the adds that need them; the generic lane_sum's per-element checks would keep one read in
// flight. A missing element reads as +0.0, which leaves a lane sum's bits alone (see above).
template <bool kFull, typename T>
__device__ __forceinline__ void contiguous_chunk_lanes(const T* chunk, std::int64_t len, int w,
                                                       float (&acc)[kLanesPerThread]) {
  if constexpr (kFull && sizeof(T) == 2) {  // 16-bit: all 32 reads in flight, kept as raw bits
    uint2 raw[kSteps][kLanesPerThread];
#pragma unroll
    for (int k = 0; k < kSteps; ++k) {
#pragma unroll
      for (int m = 0; m < kLanesPerThread; ++m)
        raw[k][m] = *reinterpret_cast<const uint2*>(chunk + k * kStepSpan + kVector * (w + 32 * m));
    }
#pragma unroll
    for (int k = 0; k < kSteps; ++k) {
#pragma unroll
      for (int m = 0; m < kLanesPerThread; ++m) {
        widen<T>({raw[k][m].x, raw[k][m].y},
                 [&](int, float value) { acc[m] = __fadd_rn(acc[m], value); });
      }
    }
  } else {  // (an else, not a return: the loop below would be unreachable code for nvcc, #128-D)
#pragma unroll
    for (int half = 0; half < 2; ++half) {               // steps k = 2 half, 2 half + 1
      if (!kFull && half * 2 * kStepSpan >= len) break;  // the same for the whole warp
      float v[2][kLanesPerThread][kVector];
#pragma unroll
      for (int kk = 0; kk < 2; ++kk) {
#pragma unroll
        for (int m = 0; m < kLanesPerThread; ++m) {
          const std::int64_t p = (2 * half + kk) * kStepSpan + kVector * (w + 32 * m);
          if (kFull || p + kVector <= len) {
            load4_aligned(chunk + p, v[kk][m]);
          } else {
#pragma unroll
            for (int j = 0; j < kVector; ++j)
              v[kk][m][j] = p + j < len ? to_float(chunk[p + j]) : 0.0f;
          }
        }
      }
#pragma unroll
      for (int kk = 0; kk < 2; ++kk) {
#pragma unroll
        for (int m = 0; m < kLanesPerThread; ++m) {
#pragma unroll
          for (int j = 0; j < kVector; ++j) acc[m] = __fadd_rn(acc[m], v[kk][m][j]);
        }
      }
    }
  }
}

// Lanes w + 32 m of a contiguous, aligned chunk of len <= 1024 elements (step 0 alone): the eight
// reads issued before the adds; few registers, so that many warps of short rows are in flight.
template <typename T>
__device__ __forceinline__ void first_step_lanes(const T* chunk, std::int64_t len, int w,
                                                 float (&acc)[kLanesPerThread]) {
  float v[kLanesPerThread][kVector];
#pragma unroll
  for (int m = 0; m < kLanesPerThread; ++m) {
    const std::int64_t p = kVector * (w + 32 * m);
    if (p + kVector <= len) {
      load4_aligned(chunk + p, v[m]);
    } else {
#pragma unroll
      for (int j = 0; j < kVector; ++j) v[m][j] = 0.0f;
    }
  }
  // At most one lane of a row is cut by its end: its elements one by one.
  const std::int64_t cut = len / kVector * kVector;  // the cut lane's first element
  if (cut < len && cut / kVector % 32 == w) {
    const int m = static_cast<int>(cut / kVector / 32);
#pragma unroll
    for (int mm = 0; mm < kLanesPerThread; ++mm) {
      if (mm != m) continue;
#pragma unroll
      for (int j = 0; j < kVector; ++j)
        if (cut + j < len) v[mm][j] = to_float(chunk[cut + j]);
    }
  }
#pragma unroll
  for (int m = 0; m < kLanesPerThread; ++m) {
#pragma unroll
    for (int j = 0; j < kVector; ++j) acc[m] = __fadd_rn(acc[m], v[m][j]);
  }
}

// Chunk c of reduction r (n elements), summed by one warp: thread w holds lanes t = w + 32 m, the
// tree's levels 128, 64 and 32 pair lanes of the same thread (m with m + 4, + 2, + 1), levels
// 16..1 go through shuffles. The sum is valid in thread 0; +0.0 for a chunk past the row's end.
// kFirstStep: every row has at most kStepSpan elements (one step per lane).
template <typename T, bool kFirstStep = false>
__device__ __forceinline__ float warp_chunk_sum(const T* x, const Source& src, std::int64_t r,
                                                std::int64_t n, std::int64_t c, int w) {
  const std::int64_t begin = c * kChunk;
  float acc[kLanesPerThread];
#pragma unroll
  for (int m = 0; m < kLanesPerThread; ++m) acc[m] = 0.0f;
  if (begin < n) {
    const std::int64_t len = n - begin < kChunk ? n - begin : kChunk;
    const T* chunk = x + src.start(r) + begin * src.stride_length;
    if (vector_ready(chunk, src.stride_length)) {
      if constexpr (kFirstStep)
        first_step_lanes(chunk, len, w, acc);
      else if (len == kChunk)
        contiguous_chunk_lanes<true>(chunk, len, w, acc);
      else
        contiguous_chunk_lanes<false>(chunk, len, w, acc);
    } else {
#pragma unroll
      for (int m = 0; m < kLanesPerThread; ++m)
        acc[m] = lane_sum<T, (kFirstStep ? 1 : kSteps)>(chunk, src.stride_length, len, w + 32 * m);
    }
  }
#pragma unroll
  for (int m = 0; m < 4; ++m) acc[m] = __fadd_rn(acc[m], acc[m + 4]);  // s = 128
#pragma unroll
  for (int m = 0; m < 2; ++m) acc[m] = __fadd_rn(acc[m], acc[m + 2]);  // s = 64
  acc[0] = __fadd_rn(acc[0], acc[1]);                                  // s = 32
  return warp_tree(acc[0]);                                            // s = 16 .. 1
}

constexpr std::int64_t kMaxBlocks = 2147483647;  // of a launch's grid, in x

inline Status launched() {
  return launch_status();
}

// The launches, one per kernel, for element type T: instantiated for float, __half and
// __nv_bfloat16 beside each kernel. invariant_reduce.cu chooses the kernel; a launch checks only
// that its grid fits (else invalid_argument).

// chunk_sums.cu: chunk c of reduction r to partial[r * chunks_per_row + c], one warp per chunk.
template <typename T>
Status chunk_sums(const T* x, Source src, std::int64_t reductions, std::int64_t chunks_per_row,
                  float* partial, cudaStream_t stream);

// row_sums.cu: reductions of up to kRowChunks chunks (none longer than max_n), one warp each from
// start to finish.
constexpr std::int64_t kRowChunks = kVector;
template <typename T>
Status row_sums(const T* x, Source src, std::int64_t reductions, std::int64_t chunks_per_row,
                std::int64_t max_n, Sink sink, cudaStream_t stream);

// wide_rows.cu: reductions of up to kRowChunks chunks (none longer than max_n), one block each, a
// thread per lane of each chunk: for rows too few for a warp each to fill the GPU.
template <typename T>
Status wide_rows(const T* x, Source src, std::int64_t reductions, std::int64_t max_n, Sink sink,
                 cudaStream_t stream);

// medium_rows.cu: reductions of kShortMax + 1 to kMediumRowMax<T> elements (one chunk; none
// longer than max_n), a warp per few rows, 16-byte reads.
template <typename T>
constexpr std::int64_t kMediumRowMax = sizeof(T) == 2 ? kChunk : kStepSpan;
template <typename T>
Status medium_rows(const T* x, Source src, std::int64_t reductions, std::int64_t max_n, Sink sink,
                   cudaStream_t stream);

// short_rows.cu: reductions of up to kShortMax elements, one warp each.
constexpr int kShortMax = 128;  // lengths the short and column kernels take (32 lanes x 4)
template <typename T>
Status short_rows(const T* x, Source src, std::int64_t reductions, Sink sink, cudaStream_t stream);

// column_sums.cu: `outer` blocks of src.inner > 1 reductions side by side in memory
// (stride_inner == 1), each of up to kShortMax elements.
template <typename T>
Status column_sums(const T* x, Source src, std::int64_t outer, Sink sink, cudaStream_t stream);

// short_columns.cu: like column_sums.cu, for reductions of up to kShortColumnMax elements (step 0
// of one chunk), a thread per lane slot, in one launch.
constexpr std::int64_t kShortColumnMax = kStepSpan;
template <typename T>
Status short_columns(const T* x, Source src, std::int64_t outer, Sink sink, cudaStream_t stream);

// long_columns.cu: like column_sums.cu, for reductions longer than kShortColumnMax: chunk remnants
// into `remnants` (long_column_remnant_floats), then each chunk's sum, final when the reductions
// are one chunk long, else into partial[r * chunks + c] for the passes over chunk sums.
std::size_t long_column_remnant_floats(std::int64_t reductions, std::int64_t n);
template <typename T>
Status long_columns(const T* x, Source src, std::int64_t outer, float* remnants, Sink sink,
                    float* partial, cudaStream_t stream);

}  // namespace samebits::kernels::reduce_device
