// How far an indexer score may be from the real-number score of the same inputs, for each way of
// forming the dot products: the bound the tests and the contract check, derived once here.
#pragma once

#include <cstdint>

#include "kernels/indexer/invariant_indexer.h"

namespace samebits::kernels::indexer_bound {

// Which arithmetic forms q_h . k_t (products of two bf16 or e4m3 values are exact in float32).
enum class DotArithmetic {
  fma_chain,  // exact algorithm, GPU and CPU: d float32 fmas, each rounded to nearest
  mma,        // tensor_cores on the GPU: ceil(d / 16) bf16/f16 MMA steps into float32 accumulators
  float64,    // tensor_cores' CPU twin: float64 sum of the exact products, rounded once
};

inline constexpr double kUnit = 0x1p-24;  // float32 unit roundoff (round to nearest)

// Relative error of one dot product, as a multiple of S = sum_j |q_j k_j|:
// - fma_chain: each of the d roundings errs by at most u times a partial sum, and every partial
//   sum is at most S (1 + u)^d, so d u (1 + 2^-10) covers it for d <= 256.
// - mma: one MMA step adds 16 exact products to the accumulator. The model (Hopper; Fasi et
//   al. 2021, MMA-Sim 2025): the 17 terms are aligned to the largest, each loses less than one
//   unit in the 24th significant bit of the largest by truncation, and the normalized sum is
//   truncated once more: at most 18 * 2^-23 times the sum of the step's magnitudes, which is at
//   most S. Over ceil(d / 16) steps: 18 * 2^-23 * ceil(d / 16) (1 + 2^-10). Fp8 inputs go through
//   the f16 MMA (e4m3 widens exactly to f16; f16 and bf16 MMA accumulate alike): Hopper's fp8
//   MMA keeps about 13 accumulator bits, which would make this 2^10 times looser.
// - float64: d products summed in float64 (error at most d 2^-53 S), rounded once to float32.
inline double dot_relative_error(DotArithmetic a, std::int64_t head_dim) {
  constexpr double margin = 1.0 + 0x1p-10;
  switch (a) {
    case DotArithmetic::fma_chain: return static_cast<double>(head_dim) * kUnit * margin;
    case DotArithmetic::mma:
      return 18.0 * 0x1p-23 * static_cast<double>((head_dim + 15) / 16) * margin;
    case DotArithmetic::float64: return (kUnit + static_cast<double>(head_dim) * 0x1p-53) * margin;
  }
  return 0.0;
}

// The arithmetic of `algorithm` on the GPU (`cpu_twin` false) or in its CPU twin.
inline DotArithmetic dot_arithmetic(IndexerAlgorithm algorithm, bool cpu_twin) {
  if (algorithm == IndexerAlgorithm::exact) return DotArithmetic::fma_chain;
  return cpu_twin ? DotArithmetic::float64 : DotArithmetic::mma;
}

// The bound on |score_t - real score_t| of one key, given
//   magnitude = A_t = sum_h |w_h| |s| sum_j |q_hj k_tj|   (s = q_scale * k_scale), and
//   weight_mass = |s| sum_h |w_h|.
// After the dot (relative error e), the float32 multiply by s, the multiply by w_h and the
// ascending head sum of H parts each round to nearest, and relu is 1-Lipschitz: first order,
// (e + (H + 1) u) A_t; (H + 2) u and the factor 1 + 2^-10 cover the higher-order terms (H <= 64).
// Underflow adds absolute terms: products or partial sums below float32's normal range may be
// flushed (at most 2^-126 per product: d 2^-126 per dot, times weight_mass), and each of the
// H + 2 float32 operations after the dot may lose 2^-149.
inline double score_bound(DotArithmetic a, std::int64_t heads, std::int64_t head_dim,
                          double magnitude, double weight_mass) {
  const double relative =
      (dot_relative_error(a, head_dim) + static_cast<double>(heads + 2) * kUnit) * (1.0 + 0x1p-10);
  const double underflow = weight_mass * static_cast<double>(head_dim) * 0x1p-126 +
                           static_cast<double>(heads + 2) * 0x1p-149;
  return relative * magnitude + underflow;
}

}  // namespace samebits::kernels::indexer_bound
