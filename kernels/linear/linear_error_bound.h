// How far a samebits.linear output may be from the real-number x . w + bias of the same inputs,
// for each way of forming the dot product: the bound the tests and the contracts check.
#pragma once

#include <cstdint>

#include "kernels/common/status.h"
#include "kernels/linear/invariant_linear_order.h"

namespace samebits::kernels::linear_bound {

// Which arithmetic forms acc = x . w (invariant_linear_order.h).
enum class DotArithmetic {
  fma_chain,   // float32 inputs, GPU and twin: K float32 fmas, each rounded to nearest
  mma,         // bf16 / f16 on the GPU: ceil(K / 16) MMA steps into a float32 accumulator
  twin_steps,  // bf16 / f16 in the twin: per step a float64 sum from acc, rounded once to float32
};

inline constexpr double kUnit = 0x1p-24;  // float32 unit roundoff (round to nearest)

// c / (1 - c): the usual gamma of n rounding errors of relative size c / n each (first order c).
inline double gamma(double c) {
  return c < 1.0 ? c / (1.0 - c) : 1e300;
}

// A bound on |acc - x . w| as relative * S + absolute, with S = sum_k |x_k w_k|:
// - fma_chain: K roundings, each at most u times a partial sum; every partial sum is at most
//   S (1 + u)^K: gamma(K u) S. A rounding below float32's normal range errs by at most 2^-150
//   absolutely instead (2^-149 per fma covers it).
// - mma: per step, the model of kernels/indexer/indexer_error_bound.h (Hopper; Fasi et al. 2021):
//   the 17 terms aligned to the largest, each truncated below its 24th significant bit, then the
//   sum truncated once more: at most 18 * 2^-23 times the step's magnitudes (<= S plus the
//   accumulator's error). Over ceil(K / 16) steps: gamma(18 * 2^-23 * steps) S. Products or
//   partial sums below the normal range may be flushed: at most 2^-126 per product.
// - twin_steps: per step at most 16 float64 roundings of sums below 2 S (16 * 2^-53 * 2 < 2^-48)
//   and one float32 rounding: gamma((u + 2^-48) steps) S, plus 2^-149 per step below the normal
//   range.
inline double dot_relative(DotArithmetic a, std::int64_t k) {
  const double steps = static_cast<double>(linear_order::mma_steps(k));
  switch (a) {
    case DotArithmetic::fma_chain: return gamma(static_cast<double>(k) * kUnit);
    case DotArithmetic::mma: return gamma(18.0 * 0x1p-23 * steps);
    case DotArithmetic::twin_steps: return gamma((kUnit + 0x1p-48) * steps);
  }
  return 0.0;
}
inline double dot_absolute(DotArithmetic a, std::int64_t k) {
  const double steps = static_cast<double>(linear_order::mma_steps(k));
  switch (a) {
    case DotArithmetic::fma_chain: return static_cast<double>(k) * 0x1p-149;
    case DotArithmetic::mma: return static_cast<double>(k) * 0x1p-126;
    case DotArithmetic::twin_steps: return steps * 0x1p-149;
  }
  return 0.0;
}

inline DotArithmetic dot_arithmetic(DType dtype, bool cpu_twin) {
  if (dtype == DType::f32) return DotArithmetic::fma_chain;
  return cpu_twin ? DotArithmetic::twin_steps : DotArithmetic::mma;
}

// The output's unit roundoff and half its smallest subnormal (0 for float32, already counted).
inline double output_unit(DType dtype) {
  return dtype == DType::bf16 ? 0x1p-8 : dtype == DType::f16 ? 0x1p-11 : 0.0;
}
inline double output_underflow(DType dtype) {
  return dtype == DType::bf16 ? 0x1p-134 : dtype == DType::f16 ? 0x1p-25 : 0.0;
}

// The bound on |out - y| of one output, y = x . w + bias (real), given magnitude = S and
// value = |y|: e = the dot's error; with a bias the float32 add rounds once:
// e1 = e + u (|y| + e) + 2^-149; the output rounding to bf16 / f16 once more:
// e2 = e1 + u_out (|y| + e1) + half the output's smallest subnormal. (A float16 |y| near 65504 may
// round to inf: the bound assumes outputs in range.)
inline double output_bound(DotArithmetic a, DType dtype, std::int64_t k, bool has_bias,
                           double magnitude, double value) {
  const double e = dot_relative(a, k) * magnitude + dot_absolute(a, k);
  const double e1 = has_bias ? e + kUnit * (value + e) + 0x1p-149 : e;
  const double uo = output_unit(dtype);
  return e1 + uo * (value + e1) + output_underflow(dtype);
}

// How far a float64 reference (K products and the bias summed in float64) may be from y: its
// own part of any comparison against it.
inline double float64_reference_error(std::int64_t k, double magnitude, double bias_magnitude) {
  return gamma(static_cast<double>(k + 1) * 0x1p-53) * (magnitude + bias_magnitude);
}

}  // namespace samebits::kernels::linear_bound
