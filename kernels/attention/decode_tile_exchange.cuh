// The decode block's online softmax with a 64-key tile's keys spread over its four warps, 16 each:
// rows' maxima, the l sum's leaves and P meet in shared memory, then every warp holds them all.
#pragma once

#include <cstdint>

#include "kernels/attention/invariant_attention_order.h"
#include "kernels/attention/tensor_core_rows.cuh"
#include "kernels/common/mma_instructions.cuh"

namespace samebits::kernels::tensor_core {

// The decode block (one m16 tile of rows, MT = 1, four warps) used to have every warp score all
// 64 keys of a tile; a decode block is one warp per scheduler, so that serial work set its speed.
// Here warp w scores keys [16 w, 16 w + 16) (the MMA's n-blocks 2 w and 2 w + 1) and the row
// state is assembled from all four. Each value is the same operation on the same operands as in
// online_softmax (tensor_core_rows.cuh), so the bits are the tensor-core order's:
//  - a row's tile max is the max of the warps' maxima of round(top * scale_log2): rounding is
//    monotonic and the max is exact, so it is the max online_softmax takes;
//  - p[c], alpha and m' are per score or per row, computed alike in the warp that owns the key;
//  - l's sum adds the same leaves (p[8 b + 2 t] + p[8 b + 2 t + 1]) over b ascending, then the
//    quad's butterfly, in every warp;
//  - P V takes P's 16-key steps c = 0..3 in order, whichever warp rounded them.
constexpr int kDecodeWarps = 4;
constexpr int kDecodeRows = 16;
struct DecodeExchange {
  float top[kDecodeWarps][kDecodeRows];   // a warp's max of the row's visible scaled scores
  float leaf[kDecodeRows][4][8];          // [row][t][b]: the sum's leaves
  std::uint32_t pa[kDecodeWarps][4][32];  // [key step = warp][register][lane]: P, rounded
};

// Row k (0, 1) of a lane: fragment row lane / 4 + 8 k; its scores are s[i][2 k + e] for key
// 16 w + 8 i + 2 (lane % 4) + e.
__device__ __forceinline__ int decode_row(int lane, int k) {
  return lane / 4 + 8 * k;
}

// Visible keys of the tile at t0 for a row with n keys past the block's first.
__device__ __forceinline__ int visible_in_tile(int n, int t0) {
  constexpr int kKeys = static_cast<int>(order::kKeyTile);
  const int left = n - t0;
  return left <= 0 ? 0 : (left >= kKeys ? kKeys : left);
}

// First part: the warp's maxima of its keys' scaled scores, per row, into shared memory.
__device__ __forceinline__ void decode_tile_top(DecodeExchange& ex, const float (&s)[2][4],
                                                int warp, int lane, int t0, float scale_log2,
                                                const int (&n)[2]) {
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    const int visible = visible_in_tile(n[k], t0), h = 2 * k;
    float top = -INFINITY;
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int e = 0; e < 2; ++e)
        if (16 * warp + 8 * i + 2 * (lane % 4) + e < visible) top = fmaxf(top, s[i][h + e]);
    float tile_max = top * scale_log2;
    tile_max = fmaxf(tile_max, __shfl_xor_sync(kFull, tile_max, 1));
    tile_max = fmaxf(tile_max, __shfl_xor_sync(kFull, tile_max, 2));
    if (lane % 4 == 0) ex.top[warp][decode_row(lane, k)] = tile_max;
  }
}

// Second part (after a barrier): each row's m' and alpha, the warp's probabilities, their leaves
// and their P fragment (key step `warp`) into shared memory.
template <DType T>
__device__ __forceinline__ void decode_tile_probabilities(
    DecodeExchange& ex, const float (&s)[2][4], int warp, int lane, int t0, float scale_log2,
    const int (&n)[2], const RowState (&cur)[2], float (&alpha)[2], float (&m_new)[2],
    bool (&live)[2]) {
  float x[2][4];
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    const int visible = visible_in_tile(n[k], t0), h = 2 * k, r = decode_row(lane, k);
    live[k] = visible > 0;
    const float tile_max =
        fmaxf(fmaxf(ex.top[0][r], ex.top[1][r]), fmaxf(ex.top[2][r], ex.top[3][r]));
    const float top_all = fmaxf(cur[k].m, tile_max) + 0.0f;
    const bool moved = top_all > cur[k].m + order::kTensorCoreMaxSlack;
    m_new[k] = moved ? top_all : cur[k].m;
    const bool none = m_new[k] == -INFINITY;
    alpha[k] = moved ? exp2_mufu(cur[k].m - m_new[k]) : 1.0f;
    const float neg_m = -m_new[k];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float v = exp2_mufu(fmaf(s[i][h + e], scale_log2, neg_m));
        const bool seen = 16 * warp + 8 * i + 2 * (lane % 4) + e < visible;
        x[i][h + e] = !none && seen ? v : 0.0f;
      }
#pragma unroll
    for (int i = 0; i < 2; ++i) ex.leaf[r][lane % 4][2 * warp + i] = x[i][h] + x[i][h + 1];
  }
  ex.pa[warp][0][lane] = pack_pair<T>(x[0][0], x[0][1]);
  ex.pa[warp][1][lane] = pack_pair<T>(x[0][2], x[0][3]);
  ex.pa[warp][2][lane] = pack_pair<T>(x[1][0], x[1][1]);
  ex.pa[warp][3][lane] = pack_pair<T>(x[1][2], x[1][3]);
}

// Third part (after a barrier): every warp's l and m from all leaves, and the whole tile's P.
__device__ __forceinline__ void decode_tile_gather(const DecodeExchange& ex, int lane,
                                                   const float (&alpha)[2], const float (&m_new)[2],
                                                   const bool (&live)[2], RowState (&cur)[2],
                                                   std::uint32_t (&pa)[1][4][4]) {
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    const float* leaves = ex.leaf[decode_row(lane, k)][lane % 4];
    float sum = leaves[0];
#pragma unroll
    for (int b = 1; b < 8; ++b) sum = sum + leaves[b];
    sum = sum + __shfl_xor_sync(kFull, sum, 1);
    sum = sum + __shfl_xor_sync(kFull, sum, 2);
    if (live[k]) {
      cur[k].l = fmaf(cur[k].l, alpha[k], sum);
      cur[k].m = m_new[k];
    }
  }
#pragma unroll
  for (int c = 0; c < 4; ++c)
#pragma unroll
    for (int j = 0; j < 4; ++j) pa[0][c][j] = ex.pa[c][j][lane];
}

}  // namespace samebits::kernels::tensor_core
