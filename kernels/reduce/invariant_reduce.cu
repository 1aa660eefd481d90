// The CUDA kernels of the invariant reduction. Each follows invariant_reduce_order.h exactly; they
// differ only in how threads are mapped to the order's lanes, never in which values meet in an add.
//   chunk_kernel:  one warp per (reduction, chunk of 4096): thread w holds lanes w + 32 m, so the
//                  tree's first levels stay in registers and the last five are shuffles.
//   row_kernel:    one warp per reduction of up to four chunks, its chunk sums and their sum in
//                  one launch (the same adds as chunk sums summed by a second launch).
//   short_kernel:  one warp per reduction of length <= 128 (lanes 32..255 are empty).
//   column_kernel: eight threads per 16 bytes of adjacent reductions of length <= 128 (column
//                  sums): four lanes each in registers, the last three tree levels by shuffles.
// An empty lane holds +0.0, and adding +0.0 changes no lane (a lane sum starts at +0.0 and so is
// never -0.0): kernels may skip lanes, chunks and padding that the order fills with zeros.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <type_traits>

#include "kernels/reduce/invariant_reduce.h"
#include "kernels/reduce/invariant_reduce_order.h"

namespace samebits::kernels {
namespace {

using namespace reduce_order;

constexpr int kShortMax = 128;  // lengths the one-warp and one-thread kernels take (32 lanes x 4)

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
    v[0] = from_bits<T>(q.x & 0xffffu);
    v[1] = from_bits<T>(q.x >> 16);
    v[2] = from_bits<T>(q.y & 0xffffu);
    v[3] = from_bits<T>(q.y >> 16);
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

// Lane t of a 256-lane chunk of n <= 4096 elements: its sum of up to 16 of them, in order k, then
// j.
template <typename T>
__device__ __forceinline__ float lane_sum(const T* row, std::int64_t stride, std::int64_t n,
                                          int t) {
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < kSteps; ++k) {
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

constexpr int kWarpsPerBlock = 8;
constexpr int kLanesPerThread = kLanes / 32;  // 8: warp thread w holds lanes w + 32 m, m = 0..7

// True when a chunk's elements are contiguous and its start is aligned for four-element loads.
template <typename T>
__device__ __forceinline__ bool vector_ready(const T* chunk, std::int64_t stride) {
  return stride == 1 && reinterpret_cast<std::uintptr_t>(chunk) % (4 * sizeof(T)) == 0;
}

// Lanes w + 32 m (m = 0..7) of a contiguous, aligned chunk of len <= 4096 elements (kFull: len
// is 4096): the reads of two steps (16 four-element loads, predicated on p < len) are issued
// before the adds that need them; the generic lane_sum's per-element checks would keep one read in
// flight. A missing element reads as +0.0, which leaves a lane sum's bits alone (see the top).
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
        acc[m] = __fadd_rn(acc[m], from_bits<T>(raw[k][m].x & 0xffffu));
        acc[m] = __fadd_rn(acc[m], from_bits<T>(raw[k][m].x >> 16));
        acc[m] = __fadd_rn(acc[m], from_bits<T>(raw[k][m].y & 0xffffu));
        acc[m] = __fadd_rn(acc[m], from_bits<T>(raw[k][m].y >> 16));
      }
    }
    return;
  }
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

// Chunk c of reduction r (n elements), summed by one warp: thread w holds lanes t = w + 32 m, the
// tree's levels 128, 64 and 32 pair lanes of the same thread (m with m + 4, + 2, + 1), levels
// 16..1 go through shuffles. The sum is valid in thread 0; +0.0 for a chunk past the row's end.
template <typename T>
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
      if (len == kChunk)
        contiguous_chunk_lanes<true>(chunk, len, w, acc);
      else
        contiguous_chunk_lanes<false>(chunk, len, w, acc);
    } else {
#pragma unroll
      for (int m = 0; m < kLanesPerThread; ++m)
        acc[m] = lane_sum(chunk, src.stride_length, len, w + 32 * m);
    }
  }
#pragma unroll
  for (int m = 0; m < 4; ++m) acc[m] = __fadd_rn(acc[m], acc[m + 4]);  // s = 128
#pragma unroll
  for (int m = 0; m < 2; ++m) acc[m] = __fadd_rn(acc[m], acc[m + 2]);  // s = 64
  acc[0] = __fadd_rn(acc[0], acc[1]);                                  // s = 32
  return warp_tree(acc[0]);                                            // s = 16 .. 1
}

// One warp per (reduction r, chunk c): chunk c's sum goes to partial[r * chunks_per_row + c].
template <typename T>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    chunk_kernel(const T* x, Source src, std::int64_t items, std::int64_t chunks_per_row,
                 float* partial) {
  const std::int64_t item = std::int64_t{blockIdx.x} * kWarpsPerBlock + threadIdx.x / 32;
  if (item >= items) return;  // whole warps leave together
  const int w = threadIdx.x % 32;
  const Quotient rc = divide(item, chunks_per_row);
  const float sum = warp_chunk_sum(x, src, rc.q, src.length(rc.q), rc.r, w);
  if (w == 0) partial[item] = sum;
}

// One warp per reduction of at most kRowChunks chunks, start to finish in one launch: its chunk
// sums in chunk order, then the order's rule over them. Those sums are the first elements of the
// next level's one chunk, all in its lane 0 (lane 0 takes elements 0..3); every other lane of that
// chunk is empty, so the tree leaves lane 0's sum as the result (+0.0 added to a sum that is never
// -0.0 changes nothing). The same adds as chunk sums written out and summed by a second launch.
constexpr std::int64_t kRowChunks = kVector;
template <typename T>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    row_kernel(const T* x, Source src, std::int64_t reductions, std::int64_t chunks_per_row,
               Sink sink) {
  const std::int64_t r = std::int64_t{blockIdx.x} * kWarpsPerBlock + threadIdx.x / 32;
  if (r >= reductions) return;  // whole warps leave together
  const int w = threadIdx.x % 32;
  const std::int64_t n = src.length(r);
  float lane0 = 0.0f;
  for (std::int64_t c = 0; c < chunks_per_row && c * kChunk < n; ++c) {
    lane0 = __fadd_rn(lane0, warp_chunk_sum(x, src, r, n, c, w));  // meaningful in thread 0
  }
  if (w == 0) sink.write(r, lane0);
}

// One warp per reduction of n <= 128: thread t is lane t (elements 4t..4t+3); lanes 32..255 are
// empty, so the tree's levels 128..32 change nothing and only the shuffles remain.
template <typename T>
__global__ void short_kernel(const T* x, Source src, std::int64_t reductions, Sink sink) {
  const std::int64_t r = (std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  const int t = threadIdx.x % 32;
  if (r >= reductions) return;  // whole warps leave together
  const float sum = warp_tree(lane_sum(x + src.start(r), src.stride_length, src.length(r), t));
  if (t == 0) sink.write(r, sum);
}

// Column sums: reductions side by side in memory (stride_inner == 1), each of n <= 128 elements
// walked at stride_length. Eight threads share a group of kColumns<T> adjacent reductions (16
// bytes of each row: 4 float32 or 8 16-bit values); thread g holds lanes t = g + 8 m (m = 0..3),
// rows 4 t .. 4 t + 3. The tree's levels 16 and 8 pair lanes of one thread (m with m + 2, then
// m + 1); levels 4, 2, 1 pair threads g and g + s through shuffles. A warp holds four groups side
// by side, so each of its loads reads 64 contiguous bytes of eight rows.
constexpr int kGroupThreads = 8;
constexpr int kGroupLanes = 32 / kGroupThreads;     // 4 lanes per thread
constexpr int kGroupsPerWarp = 32 / kGroupThreads;  // 4
constexpr int kColumnThreads = 256;
constexpr int kGroupsPerBlock = kColumnThreads / kGroupThreads;
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
    const unsigned int words[4] = {word.x, word.y, word.z, word.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      v[2 * i] = from_bits<T>(words[i] & 0xffffu);
      v[2 * i + 1] = from_bits<T>(words[i] >> 16);
    }
  }
}

// Thread g's lanes g + 8 m of one group, which start at +0.0: rows 4 t + j added in order j = 0..3.
// kVector (all kColumns<T> present, every row 16-byte aligned): all sixteen row reads are issued
// first, a missing row reading as +0.0 (which leaves a lane sum's bits alone); otherwise scalar
// reads of the `count` columns present.
template <typename T, bool kVector>
__device__ __forceinline__ void group_lanes(const T* base, std::int64_t stride, std::int64_t n,
                                            int count, int g,
                                            float (&lane)[kGroupLanes][kColumns<T>]) {
  constexpr int C = kColumns<T>;
  if constexpr (kVector) {
    ColumnWord<T> rows[kGroupLanes][4];
#pragma unroll
    for (int m = 0; m < kGroupLanes; ++m) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const std::int64_t p = 4 * (g + kGroupThreads * m) + j;
        rows[m][j] =
            p < n ? *reinterpret_cast<const ColumnWord<T>*>(base + p * stride) : ColumnWord<T>{};
      }
    }
#pragma unroll
    for (int m = 0; m < kGroupLanes; ++m) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        float v[C];
        widen_columns<T>(rows[m][j], v);
#pragma unroll
        for (int q = 0; q < C; ++q) lane[m][q] = __fadd_rn(lane[m][q], v[q]);
      }
    }
  } else {
#pragma unroll
    for (int m = 0; m < kGroupLanes; ++m) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const std::int64_t p = 4 * (g + kGroupThreads * m) + j;
        if (p < n) {
#pragma unroll
          for (int q = 0; q < C; ++q) {
            if (q < count) lane[m][q] = __fadd_rn(lane[m][q], to_float(base[p * stride + q]));
          }
        }
      }
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(kColumnThreads)
    column_kernel(const T* x, Source src, std::int64_t groups, std::int64_t groups_per_outer,
                  Sink sink) {
  constexpr int C = kColumns<T>;
  const int in_warp = threadIdx.x % 32;
  const int g = in_warp / kGroupsPerWarp;
  const std::int64_t group = std::int64_t{blockIdx.x} * kGroupsPerBlock +
                             threadIdx.x / 32 * kGroupsPerWarp + in_warp % kGroupsPerWarp;
  // No early exit: every thread of the warp takes part in the shuffles.
  const bool live = group < groups;
  float lane[kGroupLanes][C] = {};  // lane sums start at +0.0
  std::int64_t first = 0;           // the group's first reduction
  int count = 0;                    // how many of its C reductions exist
  if (live) {
    const Quotient og = divide(group, groups_per_outer);
    const std::int64_t o = og.q, i0 = og.r * C;
    count = src.inner - i0 < C ? static_cast<int>(src.inner - i0) : C;
    first = o * src.inner + i0;
    const T* base = x + o * src.stride_outer + i0;
    const bool vector = count == C && reinterpret_cast<std::uintptr_t>(base) % 16 == 0 &&
                        src.stride_length * static_cast<std::int64_t>(sizeof(T)) % 16 == 0;
    if (vector)
      group_lanes<T, true>(base, src.stride_length, src.n, count, g, lane);
    else
      group_lanes<T, false>(base, src.stride_length, src.n, count, g, lane);
  }
#pragma unroll
  for (int q = 0; q < C; ++q) {
    lane[0][q] = __fadd_rn(lane[0][q], lane[2][q]);  // s = 16
    lane[1][q] = __fadd_rn(lane[1][q], lane[3][q]);
    lane[0][q] = __fadd_rn(lane[0][q], lane[1][q]);  // s = 8
  }
#pragma unroll
  for (int s = 4; s >= 1; s /= 2) {  // thread g + s of the same group is s * 4 lanes down
#pragma unroll
    for (int q = 0; q < C; ++q)
      lane[0][q] =
          __fadd_rn(lane[0][q], __shfl_down_sync(0xffffffffu, lane[0][q], s * kGroupsPerWarp));
  }
  if (live && g == 0) {
#pragma unroll
    for (int q = 0; q < C; ++q) {
      if (q < count) sink.write(first + q, lane[0][q]);  // constant q keeps `lane` in registers
    }
  }
}

Status launched() {
  return cudaPeekAtLastError() == cudaSuccess ? Status::ok : Status::cuda_error;
}

constexpr std::int64_t kMaxBlocks = 2147483647;

// Rows of c chunks are finished one warp per row when that needs no second launch (c <= 4) and
// there are enough rows to fill the GPU with warps; else chunk sums go through the workspace.
constexpr std::int64_t kRowsForRowKernel = 1024;
bool one_warp_per_row(std::int64_t c, std::int64_t reductions) {
  return c == 1 || (c <= kRowChunks && reductions >= kRowsForRowKernel);
}

// Floats of workspace for `reductions` rows of up to n elements: the first pass's chunk sums and,
// beside them, the next pass's (passes alternate between the two halves).
std::size_t workspace_floats(std::int64_t reductions, std::int64_t n) {
  const std::int64_t c = chunks(n);
  if (one_warp_per_row(c, reductions)) return 0;
  return 2 * static_cast<std::size_t>(reductions) * static_cast<std::size_t>(c);
}

template <typename T>
Status launch_chunks(const T* x, Source src, std::int64_t reductions, std::int64_t chunks_per_row,
                     float* partial, cudaStream_t stream) {
  const std::int64_t items = reductions * chunks_per_row;
  const std::int64_t blocks = (items + kWarpsPerBlock - 1) / kWarpsPerBlock;
  if (blocks > kMaxBlocks) return Status::invalid_argument;
  chunk_kernel<T><<<static_cast<unsigned>(blocks), kWarpsPerBlock * 32, 0, stream>>>(
      x, src, items, chunks_per_row, partial);
  return launched();
}

template <typename T>
Status launch_rows(const T* x, Source src, std::int64_t reductions, std::int64_t chunks_per_row,
                   Sink sink, cudaStream_t stream) {
  const std::int64_t blocks = (reductions + kWarpsPerBlock - 1) / kWarpsPerBlock;
  if (blocks > kMaxBlocks) return Status::invalid_argument;
  row_kernel<T><<<static_cast<unsigned>(blocks), kWarpsPerBlock * 32, 0, stream>>>(
      x, src, reductions, chunks_per_row, sink);
  return launched();
}

// Reduces `reductions` rows described by `src` into `sink`: short rows by warps; otherwise chunk
// sums pass by pass (each pass's rows are the previous pass's chunk sums) until a pass's rows can
// be finished one warp per row.
template <typename T>
Status run_rows(const T* x, Source src, std::int64_t max_n, std::int64_t reductions, Sink sink,
                float* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
  if (reductions == 0) return Status::ok;
  if (max_n <= kShortMax) {
    const std::int64_t blocks = (reductions + kWarpsPerBlock - 1) / kWarpsPerBlock;
    if (blocks > kMaxBlocks) return Status::invalid_argument;
    short_kernel<T><<<static_cast<unsigned>(blocks), kWarpsPerBlock * 32, 0, stream>>>(
        x, src, reductions, sink);
    return launched();
  }
  std::int64_t c = chunks(max_n);
  if (one_warp_per_row(c, reductions)) return launch_rows<T>(x, src, reductions, c, sink, stream);
  if (workspace_bytes < workspace_floats(reductions, max_n) * sizeof(float))
    return Status::workspace_too_small;
  float* halves[2] = {
      workspace, workspace + static_cast<std::size_t>(reductions) * static_cast<std::size_t>(c)};
  const Status first = launch_chunks<T>(x, src, reductions, c, halves[0], stream);
  if (first != Status::ok) return first;
  for (int pass = 0;; ++pass) {
    // Dense rows of c chunk sums each; zeros past a short row's chunks change nothing.
    const Source partial{1, c, 0, 1, nullptr, c};
    const std::int64_t next = chunks(c);
    float* in = halves[pass % 2];
    if (one_warp_per_row(next, reductions))
      return launch_rows<float>(in, partial, reductions, next, sink, stream);
    const Status status =
        launch_chunks<float>(in, partial, reductions, next, halves[(pass + 1) % 2], stream);
    if (status != Status::ok) return status;
    c = next;
  }
}

// Reductions side by side in memory and short enough for registers.
bool column_layout(const ReduceProblem& p) {
  return p.inner > 1 && p.stride_inner == 1 && p.length <= kShortMax;
}

template <typename T>
Status dispatch(const ReduceProblem& p, void* workspace, std::size_t workspace_bytes,
                cudaStream_t stream) {
  const T* x = static_cast<const T*>(p.x);
  const std::int64_t reductions = p.outer * p.inner;
  const Source src{std::max<std::int64_t>(p.inner, 1),
                   p.stride_outer,
                   p.stride_inner,
                   p.stride_length,
                   nullptr,
                   p.length};
  const Sink sink{p.out,
                  std::max<std::int64_t>(p.inner, 1),
                  p.out_stride_outer,
                  p.out_stride_inner,
                  p.mean,
                  nullptr,
                  p.length};
  if (reductions == 0) return Status::ok;
  if (column_layout(p)) {
    const std::int64_t groups_per_outer = (p.inner + kColumns<T> - 1) / kColumns<T>;
    const std::int64_t groups = p.outer * groups_per_outer;
    const std::int64_t blocks = (groups + kGroupsPerBlock - 1) / kGroupsPerBlock;
    if (blocks > kMaxBlocks) return Status::invalid_argument;
    column_kernel<T><<<static_cast<unsigned>(blocks), kColumnThreads, 0, stream>>>(
        x, src, groups, groups_per_outer, sink);
    return launched();
  }
  return run_rows<T>(x, src, p.length, reductions, sink, static_cast<float*>(workspace),
                     workspace_bytes, stream);
}

template <typename T>
Status dispatch_varlen(const VarlenReduceProblem& p, void* workspace, std::size_t workspace_bytes,
                       cudaStream_t stream) {
  const Source src{1, 0, 0, 1, p.offsets, 0};
  const Sink sink{p.out, 1, 1, 0, p.mean, p.offsets, 0};
  return run_rows<T>(static_cast<const T*>(p.values), src, p.max_length, p.rows, sink,
                     static_cast<float*>(workspace), workspace_bytes, stream);
}

bool valid(const ReduceProblem& p) {
  return p.x && p.out && p.outer >= 0 && p.length >= 0 && p.inner >= 0;
}

}  // namespace

std::size_t invariant_reduce_workspace_bytes(const ReduceProblem& p) {
  if (column_layout(p)) return 0;
  return workspace_floats(p.outer * p.inner, p.length) * sizeof(float);
}

std::size_t invariant_reduce_varlen_workspace_bytes(const VarlenReduceProblem& p) {
  return workspace_floats(p.rows, p.max_length) * sizeof(float);
}

Status invariant_reduce_cuda(const ReduceProblem& p, void* workspace, std::size_t workspace_bytes,
                             cudaStream_t stream) {
  if (!valid(p)) return Status::invalid_argument;
  switch (p.dtype) {
    case DType::f32: return dispatch<float>(p, workspace, workspace_bytes, stream);
    case DType::f16: return dispatch<__half>(p, workspace, workspace_bytes, stream);
    case DType::bf16: return dispatch<__nv_bfloat16>(p, workspace, workspace_bytes, stream);
  }
  return Status::unsupported_dtype;
}

Status invariant_reduce_varlen_cuda(const VarlenReduceProblem& p, void* workspace,
                                    std::size_t workspace_bytes, cudaStream_t stream) {
  if (!p.values || !p.offsets || !p.out || p.rows < 0 || p.max_length < 0)
    return Status::invalid_argument;
  switch (p.dtype) {
    case DType::f32: return dispatch_varlen<float>(p, workspace, workspace_bytes, stream);
    case DType::f16: return dispatch_varlen<__half>(p, workspace, workspace_bytes, stream);
    case DType::bf16: return dispatch_varlen<__nv_bfloat16>(p, workspace, workspace_bytes, stream);
  }
  return Status::unsupported_dtype;
}

}  // namespace samebits::kernels
