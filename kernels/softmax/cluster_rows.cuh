// Rows longer than 32768, each split over a cluster of 8 blocks by partial: block b owns partials
// 512 b .. 512 b + 511 (logical threads 128 b ..), holds its elements in shared memory, once read.
#pragma once

#include <cooperative_groups.h>

#include <cstdint>
#include <type_traits>

#include "kernels/softmax/invariant_softmax_order.h"
#include "kernels/softmax/softmax_device.cuh"

namespace samebits::kernels::softmax_device {

inline constexpr int kClusterBlocks = 8;
inline constexpr int kSlice = kPartials / kClusterBlocks;  // partials of a block: 512
inline constexpr int kSliceQuads = kSlice / 4;             // quads of a block in one period
inline constexpr int kLoadUnroll = 2;                      // loads of a thread in flight

// Dynamic shared memory of a row of length n: its block's elements of every 4096-element period,
// in the input's type (half of float32's for 16-bit rows: more blocks fit on a multiprocessor).
inline std::size_t cluster_shared_bytes(std::int64_t n, std::size_t element_bytes) {
  return static_cast<std::size_t>((n + kPartials - 1) / kPartials) * kSlice * element_bytes;
}

// A held quad in the input's type: 16-bit values narrowed back exactly (-inf stays -inf; a NaN may
// change its payload, and then the whole row is NaN).
__device__ __forceinline__ void hold(float* held, int q, const float v[4]) {
  reinterpret_cast<float4*>(held)[q] = make_float4(v[0], v[1], v[2], v[3]);
}
template <typename T>
__device__ __forceinline__ void hold(T* held, int q, const float v[4]) {
  reinterpret_cast<uint2*>(held)[q] = make_uint2(pack2(v[0], v[1], held), pack2(v[2], v[3], held));
}
__device__ __forceinline__ void held_quad(const float* held, int q, float v[4]) {
  unpack(reinterpret_cast<const float4*>(held)[q], held, v);
}
template <typename T>
__device__ __forceinline__ void held_quad(const T* held, int q, float v[4]) {
  unpack(reinterpret_cast<const uint2*>(held)[q], held, v);
}

// Asynchronous copies of a whole row's quads straight into shared memory (cp.async: every copy of
// a thread in flight at once), and the wait for a thread's own copies.
__device__ __forceinline__ void copy_quad_async(float* held, int q, const float* src) {
  const auto dst = static_cast<std::uint32_t>(__cvta_generic_to_shared(held + 4 * q));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}
template <typename T>
__device__ __forceinline__ void copy_quad_async(T* held, int q, const T* src) {
  const auto dst = static_cast<std::uint32_t>(__cvta_generic_to_shared(held + 4 * q));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void wait_own_copies() {
  asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
}

// Step 2's partial P = 512 b + t adds, in ascending period k, e = exp_invariant(x - m) of the
// row's element 4096 k + P: the same chain of adds as the twin, in the thread that owns t. A block
// of kThreads = 512 owns one partial a thread; of 256, two (t and t + 256: the same chains, half
// the threads, so twice the rows fit on the GPU at once; the launch picks by the row count). Step
// 3's tree: q_T = (P_4T + P_4T+1) + (P_4T+2 + P_4T+3) by two shuffles down; the warp sums of the
// block's 4 tree warps (T = 128 b .. 128 b + 127) by shuffles down as block_tree; the 32 warp
// sums, 4 from each block of the cluster, by an xor butterfly in every warp (the tree's value:
// short_rows.cuh says why). The max, order-free, over the cluster's shared memory.
template <typename In, typename Out, bool kLog, int kThreads>
__global__ void __cluster_dims__(kClusterBlocks, 1, 1)
    __launch_bounds__(kThreads, kThreads == kSlice ? 3 : 4)
        softmax_cluster_rows(const In* __restrict__ x, std::int64_t rows, std::int64_t n,
                             std::int64_t row_stride, Out* __restrict__ out,
                             std::int64_t out_row_stride) {
  namespace cg = cooperative_groups;
  static_assert(kThreads == kSlice || kThreads == kSlice / 2, "a thread owns one or two partials");
  constexpr int kOwned = kSlice / kThreads;  // partials of a thread: tid + kThreads j
  constexpr bool kKeepE = !kLog && std::is_same<In, float>::value;
  extern __shared__ float4 held_storage[];
  In* held = reinterpret_cast<In*>(held_storage);
  __shared__ float warp_max[kThreads / kWarp];
  __shared__ float quad_sum[kSlice / 4];
  __shared__ float warp_sum[kSlice / 4 / kWarp];
  __shared__ float block_max_slot;
  cg::cluster_group cluster = cg::this_cluster();
  const int b = static_cast<int>(cluster.block_rank());
  const int tid = threadIdx.x, lane = tid % kWarp, warp = tid / kWarp;
  const int periods = static_cast<int>((n + kPartials - 1) / kPartials);
  const int quads = periods * kSliceQuads;
  // Thread tid's quads are q = tid + kThreads u: period tid / 128 + (kThreads / 128) u, the row's
  // elements base + kStride u.
  const std::int64_t base =
      std::int64_t{kPartials} * (tid / kSliceQuads) + b * kSlice + 4 * (tid % kSliceQuads);
  constexpr std::int64_t kStride = std::int64_t{kPartials} * (kThreads / kSliceQuads);
  for (std::int64_t r = blockIdx.x / kClusterBlocks; r < rows; r += gridDim.x / kClusterBlocks) {
    const In* row = x + r * row_stride;
    const bool whole = quad_aligned(row) && n % 4 == 0;
    __syncthreads();  // the previous row's shared memory read
    float m = -infinity();
    if (whole) {
      // Every quad of the block's share in flight at once; past the row's end, -inf.
      std::int64_t i = base;
      for (int q = tid; q < quads; q += kThreads, i += kStride) {
        if (i < n) {
          copy_quad_async(held, q, row + i);
        } else {
          const float pad[4] = {-infinity(), -infinity(), -infinity(), -infinity()};
          hold(held, q, pad);
        }
      }
      wait_own_copies();
      for (int q = tid; q < quads; q += kThreads) {
        float v[4];
        held_quad(held, q, v);
#pragma unroll
        for (int j = 0; j < 4; ++j) m = max_device(m, v[j]);
      }
    } else {
      for (int q0 = tid; q0 < quads; q0 += kLoadUnroll * kThreads) {
        float v[kLoadUnroll][4];
#pragma unroll
        for (int u = 0; u < kLoadUnroll; ++u) {
          const int q = q0 + u * kThreads;
          if (q < quads) load4w(row, base + (q - tid) / kThreads * kStride, n, whole, v[u]);
        }
#pragma unroll
        for (int u = 0; u < kLoadUnroll; ++u) {
          const int q = q0 + u * kThreads;
          if (q < quads) {
            hold(held, q, v[u]);
#pragma unroll
            for (int j = 0; j < 4; ++j) m = max_device(m, v[u][j]);
          }
        }
      }
    }
#pragma unroll
    for (int h = kWarp / 2; h >= 1; h /= 2) m = max_device(m, __shfl_xor_sync(0xffffffffu, m, h));
    if (lane == 0) warp_max[warp] = m;
    __syncthreads();
    if (tid == 0) {
      float bm = -infinity();
#pragma unroll
      for (int w = 0; w < kThreads / kWarp; ++w) bm = max_device(bm, warp_max[w]);
      block_max_slot = bm;
    }
    cluster.sync();
    m = -infinity();
#pragma unroll
    for (int k = 0; k < kClusterBlocks; ++k)
      m = max_device(m, *cluster.map_shared_rank(&block_max_slot, k));

    // Step 2: partial 512 b + tid, its element of period k at held[512 k + tid] (past the row's
    // end: -inf, an exact +0 added). Softmax over float32 keeps e in place of x for the output;
    // over 16-bit rows (held in half the bytes) it computes e again there, the same bits.
    float acc[kOwned];
#pragma unroll
    for (int j = 0; j < kOwned; ++j) acc[j] = 0.0f;
#pragma unroll 4
    for (int k = 0; k < periods; ++k) {
#pragma unroll
      for (int j = 0; j < kOwned; ++j) {
        In& cell = held[k * kSlice + tid + kThreads * j];
        const float e = exp_nonpositive(widen(cell) - m);
        acc[j] = acc[j] + e;
        if constexpr (kKeepE) cell = e;
      }
    }
#pragma unroll
    for (int j = 0; j < kOwned; ++j) {
      const float pair = acc[j] + __shfl_down_sync(0xffffffffu, acc[j], 1);
      const float q = pair + __shfl_down_sync(0xffffffffu, pair, 2);
      if (tid % 4 == 0) quad_sum[(tid + kThreads * j) / 4] = q;
    }
    __syncthreads();
    if (tid < kSlice / 4) {
      float ws = quad_sum[tid];
#pragma unroll
      for (int h = kWarp / 2; h >= 1; h /= 2) ws = ws + __shfl_down_sync(0xffffffffu, ws, h);
      if (lane == 0) warp_sum[warp] = ws;
    }
    cluster.sync();
    constexpr int kPerBlock = kSlice / 4 / kWarp;  // tree warps of a block: 4
    float s = *cluster.map_shared_rank(&warp_sum[lane % kPerBlock], lane / kPerBlock);
#pragma unroll
    for (int h = kWarp / 2; h >= 1; h /= 2) s = s + __shfl_xor_sync(0xffffffffu, s, h);
    cluster.sync();  // no block reads another's shared memory past here

    const float log_s = kLog ? log_invariant(s) : 0.0f;
    const float inverse_s = __frcp_rn(s);  // 1 / s correctly rounded, as the twin's 1.0f / s
    Out* out_row = out + r * out_row_stride;
    const bool out_whole = quad_aligned(out_row) && n % 4 == 0;
    const bool nan_row = is_nan(s);
    std::int64_t i = base;
    for (int q0 = tid; q0 < quads; q0 += kThreads, i += kStride) {
      float v[4];
      held_quad(held, q0, v);
#pragma unroll
      for (int j = 0; j < 4; ++j)
        v[j] = kLog ? v[j] - m : (kKeepE ? v[j] : exp_nonpositive(v[j] - m));
      finish4<kLog>(out_row, i, n, out_whole, nan_row, v, inverse_s, log_s);
    }
  }
}

}  // namespace samebits::kernels::softmax_device
