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
// written by the one thread that owns its chain. The backward's tensor-core path, when it joins,
// states its own order here (dQ over key blocks and dK/dV over query blocks and heads, combined
// in an order fixed by absolute positions) and its bound against float64.

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
