// The arithmetic of the attention backward, shared by the exact CUDA kernels and their CPU twin:
// which values meet in which float32 operation, in which order. Nothing here crosses sequences.
#pragma once

#include "kernels/attention/invariant_attention_order.h"

namespace samebits::kernels::attention_backward_order {

// Per sequence, head h (KV head g = h / group) and query row i at absolute position pos_i, which
// sees the keys [0, n_i) (invariant_attention_order.h: n_i = pos_i + 1 when causal, else the
// sequence's key count). Given the forward's q, k, v, its rounded output O and float32 lse, and
// the upstream gradient dO (all 16-bit inputs read exactly as float32), every value below is
// float32 and every sum a chain of fmaf from +0 in the order stated:
//   D_i      = sum over j ascending of dO_i[j] * O_i[j]                  (row_delta())
//   x_it     = dot(q_i, k_t) * scale_log2                                (the forward's score)
//   P_it     = exp2(x_it - lse_i * log2e)                                (probability_from_lse())
//   dP_it    = sum over j ascending of dO_i[j] * v_t[j]
//   dS_it    = P_it * (dP_it - D_i)                                      (score_gradient())
//   dQ_i[j]  = scale * (sum over t ascending in [0, n_i) of dS_it * k_t[j])
//   dK_t[j]  = scale * (sum over (h in g's group ascending, then i ascending with t < n_i) of
//                       dS_it * q_i[j])
//   dV_t[j]  = sum over (h in g's group ascending, then i ascending with t < n_i) of
//              P_it * dO_i[j]
//   then each of dQ, dK, dV rounds once to the input type (to_bfloat16_bits / to_float16_bits).
// P is recomputed from the saved lse, never stored: O(N) memory. A row with no visible key
// (n_i = 0, lse = -inf) adds nothing; a key no query sees gets dK = dV = 0.
//
// Why none of it can depend on the batch: each chain above runs over one sequence's own positions
// (keys 0..n_i - 1, queries 0..q_len - 1, the group's heads), in an order fixed by those absolute
// positions and head numbers alone, one fmaf after another. There are no partial sums to combine,
// so no split count, tile shape, block count, SM count or position in the pack can enter: tiles
// in the kernels only decide which lanes compute the dots x_it and dP_it in parallel (each dot
// itself one lane's serial chain), never where a sum is cut. No atomics: each output element is
// written by the one thread that owns its chain.
//
// The tensor-core path (attention_backward_tensor_cores.cu on mma.sync; on Hopper its dK/dV and
// dQ blocks run on wgmma, attention_backward_warpgroups.cu, with the same bits: each 16-wide step
// below is the same MMA on the same operands, and the blocks' rows and tiles are the same; head
// dims 64 and 128) computes the same quantities in another fixed order, so other bits, within the
// bound below:
//   D_i      lane l of 32 chains dO_i[j] * O_i[j] over its j in [l d/32, (l+1) d/32) ascending
//            (fmaf from +0), then the lanes' sums meet in a butterfly at distances 16, 8, 4, 2, 1
//   S_it     dot(q_i, k_t) and dP_it = dot(dO_i, v_t): mma.sync m16n8k16 over d in 16-wide
//            steps ascending, from +0 (the forward's tensor-core dot)
//   P_it     ex2.approx(fmaf(S_it, scale * log2e, -(lse_i * log2e))), +0 where t >= n_i
//   dS_it    P_it * (dP_it - D_i) (score_gradient()), +0 where t >= n_i
//   dV_t     P_it rounded to the input type, times dO_i, accumulated by MMAs in float32:
//            over the group's heads h ascending, then the 64-query tiles [64 m, 64 m + 64) of the
//            sequence (m ascending; tiles no query of which sees t skipped, adding nothing), then
//            within a tile its 4 steps of 16 queries ascending
//   dK_t     scale * (the same chain of dS_it rounded to the input type times q_i)
//   dQ_i     scale * (dS_it rounded to the input type times k_t: over the 64-key tiles at
//            absolute positions 0, 64, ... ascending, each its 4 steps of 16 keys ascending)
//   then each rounds once to the input type.
// Within an MMA step, how the hardware adds its 16 products to the accumulator is its own, but the
// same instruction on the same operands for every row, wherever the row sits in a block. Tile
// borders are fixed by positions within the sequence (queries by index from its first query,
// keys from its first key) and by head numbers; a block holds one sequence's 128 keys of one KV
// head (dK/dV) or 128 queries of one head (dQ), rows past the sequence's end as zeros that no
// visible pair touches. So no batch, SM count or stream enters, and there are no atomics.
//
// The bound against a float64 backward of the same rounded inputs (O and lse from the forward),
// per element, with u = 2^-8 (bfloat16) or 2^-11 (float16), ref the float64 gradient and M the
// magnitude of its terms (|P|(|dP| + |D| + sum|dO||O| + sum|dO||v|) times |k|, |q| or, for dV,
// |P| |dO|, summed as the gradient is):
//   |got - ref| <= u |ref| + (3u/2 + eps) M + tiny (1 + A),
//   eps = (2d + G n + 64) 2^-22 (1 + max scaled sum|q||k|)
// u |ref| is the output's rounding; tiny (half the smallest subnormal step: 2^-25 for float16,
// 2^-134 for bfloat16) times 1 + A (A the sum of |k|, |q| times scale, or |dO| over the pairs
// summed) is where the output, P or dS falls among float16's subnormals and rounds absolutely; u/2
// M covers D from the rounded O (as the exact path); u M the rounding of P and dS to the input type
// before their MMAs (one relative u per product); eps float32's own error: the dots' and the lse's
// rounding moving P, ex2.approx's (2^-22 relative), and chains of at most G n terms (G the group
// size, n the sequence's keys or queries) added by MMAs that may round toward zero (2^-23 each,
// counted at 2^-22).

namespace order = attention_order;

SAMEBITS_ATTENTION_HD float row_delta(const float* dout, const float* out, int d) {
  float s = 0.0f;
  for (int j = 0; j < d; ++j) s = fmaf(dout[j], out[j], s);
  return s;
}

// lse in log2 units, once per row: the natural lse times log2(e), one rounding.
SAMEBITS_ATTENTION_HD float lse_log2(float lse) {
  return lse * order::kLog2e;
}

SAMEBITS_ATTENTION_HD float probability_from_lse(float x, float lse2) {
  return order::exp2(x - lse2);
}

SAMEBITS_ATTENTION_HD float score_gradient(float p, float dp, float delta) {
  const float centred = dp - delta;
  return p * centred;
}

}  // namespace samebits::kernels::attention_backward_order
