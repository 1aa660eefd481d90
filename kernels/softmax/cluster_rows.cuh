// Rows longer than 8192, each split over a cluster of 8 blocks by partial: block b owns partials
// 512 b .. 512 b + 511 (logical threads 128 b ..), holds its elements in shared memory, once read.
#pragma once

#include <cooperative_groups.h>

#include <cstdint>

#include "kernels/softmax/invariant_softmax_order.h"
#include "kernels/softmax/softmax_device.cuh"

namespace samebits::kernels::softmax_device {

inline constexpr int kClusterBlocks = 8;
inline constexpr int kSlice = kPartials / kClusterBlocks;  // partials of a block: 512
inline constexpr int kSliceThreads = kSlice;               // a thread per partial
inline constexpr int kSliceQuads = kSlice / 4;             // quads of a block in one period
inline constexpr int kLoadUnroll = 4;                      // loads of a thread in flight

// Dynamic shared memory of a row of length n: its block's elements of every 4096-element period.
inline std::size_t cluster_shared_bytes(std::int64_t n) {
  return static_cast<std::size_t>((n + kPartials - 1) / kPartials) * kSlice * sizeof(float);
}

// Block b's q-th quad of the row: period q / kSliceQuads, the row's element 4096 k + 512 b + 4 (q
// mod kSliceQuads); in shared memory at 4 q.
__device__ __forceinline__ std::int64_t slice_element(int b, int q) {
  return std::int64_t{q / kSliceQuads} * kPartials + b * kSlice + 4 * (q % kSliceQuads);
}

// Step 2's partial P = 512 b + t adds, in ascending period k, e = exp_invariant(x - m) of the
// row's element 4096 k + P: one thread per partial, the same chain of adds as the twin. Step 3's
// tree: q_T = (P_4T + P_4T+1) + (P_4T+2 + P_4T+3) by two shuffles down; the warp sums of the
// block's 4 tree warps (T = 128 b .. 128 b + 127) by shuffles down as block_tree; the 32 warp
// sums, 4 from each block of the cluster, by an xor butterfly in every warp (the tree's value:
// short_rows.cuh says why). The max, order-free, over the cluster's shared memory.
template <typename In, typename Out, bool kLog>
__global__ void __cluster_dims__(kClusterBlocks, 1, 1) __launch_bounds__(kSliceThreads, 2)
    softmax_cluster_rows(const In* __restrict__ x, std::int64_t rows, std::int64_t n,
                         std::int64_t row_stride, Out* __restrict__ out,
                         std::int64_t out_row_stride) {
  namespace cg = cooperative_groups;
  extern __shared__ float4 held4[];
  float* held = reinterpret_cast<float*>(held4);
  __shared__ float warp_max[kSliceThreads / kWarp];
  __shared__ float quad_sum[kSlice / 4];
  __shared__ float warp_sum[kSlice / 4 / kWarp];
  __shared__ float block_max_slot;
  cg::cluster_group cluster = cg::this_cluster();
  const int b = static_cast<int>(cluster.block_rank());
  const int tid = threadIdx.x, lane = tid % kWarp, warp = tid / kWarp;
  const int periods = static_cast<int>((n + kPartials - 1) / kPartials);
  const int quads = periods * kSliceQuads;
  for (std::int64_t r = blockIdx.x / kClusterBlocks; r < rows; r += gridDim.x / kClusterBlocks) {
    const In* row = x + r * row_stride;
    const bool aligned = quad_aligned(row);
    __syncthreads();  // the previous row's shared memory read
    float m = -infinity();
    for (int q0 = tid; q0 < quads; q0 += kLoadUnroll * kSliceThreads) {
      float v[kLoadUnroll][4];
#pragma unroll
      for (int u = 0; u < kLoadUnroll; ++u) {
        const int q = q0 + u * kSliceThreads;
        if (q < quads) load4(row, slice_element(b, q), n, aligned, v[u]);
      }
#pragma unroll
      for (int u = 0; u < kLoadUnroll; ++u) {
        const int q = q0 + u * kSliceThreads;
        if (q < quads) {
          held4[q] = make_float4(v[u][0], v[u][1], v[u][2], v[u][3]);
#pragma unroll
          for (int j = 0; j < 4; ++j) m = max_combine(m, v[u][j]);
        }
      }
    }
#pragma unroll
    for (int h = kWarp / 2; h >= 1; h /= 2) m = max_combine(m, __shfl_xor_sync(0xffffffffu, m, h));
    if (lane == 0) warp_max[warp] = m;
    __syncthreads();
    if (tid == 0) {
      float bm = -infinity();
#pragma unroll
      for (int w = 0; w < kSliceThreads / kWarp; ++w) bm = max_combine(bm, warp_max[w]);
      block_max_slot = bm;
    }
    cluster.sync();
    m = -infinity();
#pragma unroll
    for (int k = 0; k < kClusterBlocks; ++k)
      m = max_combine(m, *cluster.map_shared_rank(&block_max_slot, k));

    // Step 2: partial 512 b + tid, softmax keeping e in place of x for the output.
    const std::int64_t partial = std::int64_t{b} * kSlice + tid;
    float acc = 0.0f;
#pragma unroll 4
    for (int k = 0; k < periods; ++k) {
      if (std::int64_t{k} * kPartials + partial < n) {
        float& cell = held[k * kSlice + tid];
        const float e = exp_device(cell - m);
        acc = acc + e;
        if (!kLog) cell = e;
      }
    }
    const float pair = acc + __shfl_down_sync(0xffffffffu, acc, 1);
    const float q = pair + __shfl_down_sync(0xffffffffu, pair, 2);
    if (tid % 4 == 0) quad_sum[tid / 4] = q;
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
    const bool out_aligned = quad_aligned(out_row);
    for (int q0 = tid; q0 < quads; q0 += kSliceThreads) {
      const float4 c = held4[q0];
      const float v[4] = {c.x, c.y, c.z, c.w};
      float result[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        result[j] = kLog ? log_softmax_value(v[j], m, log_s) : v[j] * inverse_s;
      }
      store4(out_row, slice_element(b, q0), n, out_aligned, result);
    }
  }
}

}  // namespace samebits::kernels::softmax_device
