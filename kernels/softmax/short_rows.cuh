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
  for (int h = kWarp / 2; h >= 1; h /= 2) m = max_device(m, __shfl_xor_sync(0xffffffffu, m, h));
  return m;
}

// Step 3's tree warp sums W_0 .. W_kQuads-1 of a warp whose lane l holds q[w], tree warp w's q_l:
// W_lane in lanes below kQuads, +0 above. The kQuads trees run side by side: at h = 16, 8, ..
// each pair of them swaps halves (lanes with bit h keep the odd tree, the others the even one), so
// one shuffle serves two trees, until one tree per lane group is left; then xor butterflies. Every
// add is the tree's q_t + q_t+h (one way round or the other: an IEEE add commutes). Tree w ends in
// the lanes whose bits 16, 8, 4 spell w's bits 0, 1, 2.
template <int kQuads>
__device__ __forceinline__ float tree_warp_sums(float (&q)[kQuads], int lane) {
  static_assert(kQuads == 1 || kQuads == 2 || kQuads == 4 || kQuads == 8, "a power of two to 8");
  int h = kWarp / 2;
#pragma unroll
  for (int count = kQuads; count > 1; count /= 2, h /= 2) {
    const bool upper = (lane & h) != 0;
#pragma unroll
    for (int i = 0; i < count / 2; ++i) {
      const float keep = upper ? q[2 * i + 1] : q[2 * i];
      const float send = upper ? q[2 * i] : q[2 * i + 1];
      q[i] = keep + __shfl_xor_sync(0xffffffffu, send, h);
    }
  }
  float v = q[0];
#pragma unroll
  for (; h >= 1; h /= 2) v = v + __shfl_xor_sync(0xffffffffu, v, h);
  int from = 0;
#pragma unroll
  for (int j = 0; (1 << j) < kQuads; ++j) from |= ((lane >> j) & 1) << (4 - j);
  const float w = __shfl_sync(0xffffffffu, v, from);
  return lane < kQuads ? w : 0.0f;
}

// e = exp(d) of a lane's quads and their sums (q_l of each tree warp w); softmax keeps e in place
// of d for its output (e * (1 / s): e once). kNormal: every d of the warp is in exp_normal's range.
template <bool kLog, bool kNormal, int kQuads>
__device__ __forceinline__ void quad_exps(float (&v)[kQuads][4], float (&q)[kQuads]) {
#pragma unroll
  for (int w = 0; w < kQuads; ++w) {
    float e[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      e[j] = kNormal ? exp_normal(v[w][j]) : exp_nonpositive(v[w][j]);
      if (!kLog) v[w][j] = e[j];
    }
    q[w] = (e[0] + e[1]) + (e[2] + e[3]);
  }
}

// One row, held as lane l's elements 128 w + 4 l + j (w < kQuads), -inf past its end: the max,
// d = x - m, e = exp(d) and the tree's sum, then the results stored.
template <bool kLog, int kQuads, typename Out>
__device__ __forceinline__ void short_row(float (&v)[kQuads][4], int lane, std::int64_t n,
                                          Out* out_row) {
  float m = -infinity();
#pragma unroll
  for (int w = 0; w < kQuads; ++w) {
#pragma unroll
    for (int j = 0; j < 4; ++j) m = max_device(m, v[w][j]);
  }
  m = butterfly_max(m);
  // d = x - m, and whether the whole warp's d lie where exp_normal is exp_nonpositive.
  bool normal = true;
#pragma unroll
  for (int w = 0; w < kQuads; ++w) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      v[w][j] = v[w][j] - m;
      normal = normal && exp_normal_range(v[w][j]);
    }
  }
  float q[kQuads];
  if (__all_sync(0xffffffffu, normal)) {
    quad_exps<kLog, true>(v, q);
  } else {
    quad_exps<kLog, false>(v, q);
  }
  const float s = butterfly_sum(tree_warp_sums<kQuads>(q, lane));
  const float log_s = kLog ? log_invariant(s) : 0.0f;
  const float inverse_s = __frcp_rn(s);  // 1 / s correctly rounded, as the twin's 1.0f / s
  const bool out_whole = quad_aligned(out_row) && n % 4 == 0;
  const bool nan_row = is_nan(s);
#pragma unroll
  for (int w = 0; w < kQuads; ++w) {
    finish4<kLog>(out_row, 128 * w + 4 * lane, n, out_whole, nan_row, v[w], inverse_s, log_s);
  }
}

// kQuads * 128 >= the row length; a warp per row, rows r, r + step, .. of a grid of any size.
// all_whole (every row aligned for quads, the length a multiple of 4): the next row's quads are
// loaded while this one is computed.
template <typename In, typename Out, bool kLog, int kQuads>
__global__ void __launch_bounds__(kWarp* kShortRowsPerBlock, kQuads <= 4 ? 6 : 4)
    softmax_short_rows(const In* __restrict__ x, std::int64_t rows, std::int64_t n,
                       std::int64_t row_stride, Out* __restrict__ out, std::int64_t out_row_stride,
                       bool all_whole) {
  static_assert(kQuads <= kWarps, "one tree warp sum per lane");
  const int lane = threadIdx.x % kWarp;
  const std::int64_t step = std::int64_t{gridDim.x} * kShortRowsPerBlock;
  const std::int64_t first = std::int64_t{blockIdx.x} * kShortRowsPerBlock + threadIdx.x / kWarp;
  if (all_whole) {
    using Quad = decltype(load_quad(x));
    Quad next[kQuads];
    const auto fetch = [&](std::int64_t r) {
      const In* row = x + r * row_stride;
#pragma unroll
      for (int w = 0; w < kQuads; ++w) {
        const std::int64_t i = 128 * w + 4 * lane;
        next[w] = i < n ? load_quad(row + i) : neg_inf_quad(row);
      }
    };
    if (first < rows) fetch(first);
    for (std::int64_t r = first; r < rows; r += step) {
      float v[kQuads][4];
#pragma unroll
      for (int w = 0; w < kQuads; ++w) unpack(next[w], x, v[w]);
      if (r + step < rows) fetch(r + step);
      short_row<kLog>(v, lane, n, out + r * out_row_stride);
    }
  } else {
    for (std::int64_t r = first; r < rows; r += step) {
      const In* row = x + r * row_stride;
      const bool whole = quad_aligned(row) && n % 4 == 0;
      float v[kQuads][4];
#pragma unroll
      for (int w = 0; w < kQuads; ++w) load4w(row, 128 * w + 4 * lane, n, whole, v[w]);
      short_row<kLog>(v, lane, n, out + r * out_row_stride);
    }
  }
}

}  // namespace samebits::kernels::softmax_device
