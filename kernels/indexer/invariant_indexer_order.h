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
// The top-k of the scores then follows kernels/topk/invariant_topk_order.h.
SAMEBITS_INDEXER_HD float relu(float x) {
  return (x > 0.0f || x != x) ? x : 0.0f;
}

SAMEBITS_INDEXER_HD float head_part(float dot, float scale, float weight) {
  return relu(dot * scale) * weight;
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
