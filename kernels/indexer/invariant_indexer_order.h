// The arithmetic of one indexer score, shared by the CUDA kernel and its CPU twin: which values
// meet in which float32 operation, in which order. Nothing here depends on other items.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define SAMEBITS_INDEXER_HD __host__ __device__ __forceinline__
#else
#define SAMEBITS_INDEXER_HD inline
#endif

namespace samebits::kernels::indexer_order {

// score[t] of an item with H heads, head dim d, query q [H, d], keys K [L, d], weights w [H]:
//   dot(h, t)  = fma(q[h][d-1], K[t][d-1], ... fma(q[h][1], K[t][1], fma(q[h][0], K[t][0], +0)))
//                (one fused multiply-add per j, j ascending; inputs widened exactly to float32,
//                so with bf16 or fp8 inputs every product is exact and fma == multiply then add)
//   logit(h,t) = dot(h, t) * (q_scale * k_scale)   (scales 1 for bf16: the multiply is exact)
//   part(h, t) = relu(logit(h, t)) * w[h]          (relu keeps NaN, maps -0 and negatives to +0)
//   score[t]   = ((+0 + part(0, t)) + part(1, t)) + ... + part(H - 1, t)
// That is the exact algorithm. The tensor_cores algorithm forms only dot(h, t) differently:
//   dot(h, t)  = mma(step n - 1, ... mma(step 1, mma(step 0, +0)))   n = ceil(d / 16)
//                step s: one MMA instruction (bf16; f16 for fp8 inputs) adding q[h][16s .. 16s +
//                15] . K[t][same j] (columns past d are zeros) to the float32 accumulator; fp8
//                values are widened exactly to f16 first. Which key of a 128-key tile (tiles
//                counted from the item's first key) sits in which MMA row is a function of t alone,
//                and every output element of an MMA gets the same arithmetic, so the bits depend on
//                the item's own q, K[t], w and scales only.
//   its CPU twin: dot(h, t) = float32(sum over j of double(q[h][j]) * double(K[t][j])),
//                the float64 sum in ascending j (the MMA's internal order has no exact model).
//   logit and part as above; the head sum follows the MMA's layout instead, where lane c of a
//   quad holds heads 8n + 2c + e (tensor_core_head_sum below):
//   score[t]   = (((+0 + P(0)) + P(1)) + P(2)) + P(3),
//   P(c)       = ((+0 + part(2c)) + part(2c + 1)) + part(8 + 2c) + part(9 + 2c) + ...  (h < H)
// The top-k of the scores follows kernels/topk/invariant_topk_order.h.
SAMEBITS_INDEXER_HD float relu(float x) {
  return (x > 0.0f || x != x) ? x : 0.0f;
}

SAMEBITS_INDEXER_HD float head_part(float dot, float scale, float weight) {
  return relu(dot * scale) * weight;
}

// The tensor_cores head sum of parts[0 .. heads - 1] (the order above). A partial with no heads
// (c >= 2 when H = 4) is +0, and adding +0 changes no sum that starts from +0.
SAMEBITS_INDEXER_HD float tensor_core_head_sum(const float* parts, int heads) {
  float score = 0.0f;
  for (int c = 0; c < 4; ++c) {
    float partial = 0.0f;
    for (int h0 = 2 * c; h0 < heads; h0 += 8) {
      partial = partial + parts[h0];
      if (h0 + 1 < heads) partial = partial + parts[h0 + 1];
    }
    score = score + partial;
  }
  return score;
}

// Exact fp8 e4m3fn (1 sign, 4 exponent bits with bias 7, 3 mantissa bits, no infinities; NaN is
// S.1111.111) to float32.
SAMEBITS_INDEXER_HD float e4m3_to_float(std::uint8_t v) {
  const float sign = (v & 0x80u) ? -1.0f : 1.0f;
  const int exponent = (v >> 3) & 0xf;
  const int mantissa = v & 0x7;
  if (exponent == 0xf && mantissa == 0x7) return NAN;
  if (exponent == 0) return sign * static_cast<float>(mantissa) * 0.001953125f;  // m * 2^-9
  return sign * (1.0f + static_cast<float>(mantissa) * 0.125f) * ldexpf(1.0f, exponent - 7);
}

}  // namespace samebits::kernels::indexer_order
