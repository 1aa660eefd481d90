// Rows of at most kShortRowMax elements, one warp each, the row held in registers: read once,
// written once, no block barrier. Same bits as the block kernel: every partial holds at most one
// element (V <= 4096), so the sum is step 3's tree over the e_i, with lane l's q for tree warp w
// covering elements 128 w + 4 l .. +3. An xor butterfly gives every lane the tree's value (lane
// l < h adds lane l + h, as the tree; lane l >= h adds the same two values the other way round,
// and an IEEE add commutes), and the warp sums W_w past the row's last element are +0.
#pragma once

#include <cstdint>

#include "kernels/softmax/invariant_softmax_order.h"
#include "kernels/softmax/softmax_device.cuh"

namespace samebits::kernels::softmax_device {

inline constexpr std::int64_t kShortRowMax = 1024;
inline constexpr int kShortRowsPerBlock = 8;  // warps of 256 threads

__device__ __forceinline__ float butterfly_sum(float q) {
#pragma unroll
  for (int h = kWarp / 2; h >= 1; h /= 2) q = q + __shfl_xor_sync(0xffffffffu, q, h);
  return q;
}

__device__ __forceinline__ float butterfly_max(float m) {
#pragma unroll
  for (int h = kWarp / 2; h >= 1; h /= 2) m = max_combine(m, __shfl_xor_sync(0xffffffffu, m, h));
  return m;
}

// kQuads * 128 >= the row length: lane l holds elements 128 w + 4 l + j, w < kQuads.
template <typename In, typename Out, bool kLog, int kQuads>
__global__ void __launch_bounds__(kWarp* kShortRowsPerBlock)
    softmax_short_rows(const In* __restrict__ x, std::int64_t rows, std::int64_t n,
                       std::int64_t row_stride, Out* __restrict__ out,
                       std::int64_t out_row_stride) {
  static_assert(kQuads <= kWarps, "one tree warp sum per lane");
  const int lane = threadIdx.x % kWarp;
  const std::int64_t warps = std::int64_t{gridDim.x} * kShortRowsPerBlock;
  for (std::int64_t r = std::int64_t{blockIdx.x} * kShortRowsPerBlock + threadIdx.x / kWarp;
       r < rows; r += warps) {
    const In* row = x + r * row_stride;
    const bool aligned = quad_aligned(row);
    float v[kQuads][4];
#pragma unroll
    for (int w = 0; w < kQuads; ++w) load4(row, 128 * w + 4 * lane, n, aligned, v[w]);
    float m = -infinity();
#pragma unroll
    for (int w = 0; w < kQuads; ++w) {
#pragma unroll
      for (int j = 0; j < 4; ++j) m = max_combine(m, v[w][j]);
    }
    m = butterfly_max(m);
    float mine = 0.0f;  // W_lane
#pragma unroll
    for (int w = 0; w < kQuads; ++w) {
      float e[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        e[j] = 128 * w + 4 * lane + j < n ? exp_device(v[w][j] - m) : 0.0f;
        if (!kLog) v[w][j] = e[j];  // softmax's output is e * (1 / s): e once, kept
      }
      const float q = butterfly_sum((e[0] + e[1]) + (e[2] + e[3]));
      if (lane == w) mine = q;
    }
    const float s = butterfly_sum(mine);
    const float log_s = kLog ? log_invariant(s) : 0.0f;
    const float inverse_s = __frcp_rn(s);  // 1 / s correctly rounded, as the twin's 1.0f / s
    Out* out_row = out + r * out_row_stride;
    const bool out_aligned = quad_aligned(out_row);
#pragma unroll
    for (int w = 0; w < kQuads; ++w) {
      float result[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        result[j] = kLog ? log_softmax_value(v[w][j], m, log_s) : v[w][j] * inverse_s;
      }
      store4(out_row, 128 * w + 4 * lane, n, out_aligned, result);
    }
  }
}

}  // namespace samebits::kernels::softmax_device
