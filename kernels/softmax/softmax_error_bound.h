// How far samebits' softmax and log_softmax may lie from the exact (float64) result of the same
// inputs, derived from invariant_softmax_order.h's operations: tests and the contracts rely on it.
//
// Notation: u = 2^-24 (float32 rounding), a row of V elements, m its max, g_i = m - x_i >= 0, G the
// largest g_i below 104 (larger ones give e_i = 0, true value < 2^-149). Then
//   d_i = fl(x_i - m) = (x_i - m)(1 + a), |a| <= u, so exp(d_i) = exp(x_i - m)(1 + b), |b|
//   <= 1.0001 u g_i; e_i = exp_invariant(d_i) adds kExpMaxUlp ulp <= 2 u (relative) more: eps_i <=
//   2u + 1.0001 u g_i; s sums the e_i along a path of at most L = ceil(V / 4096) + 12 adds (the
//   partial's adds, then 2 + 5 + 5 tree levels), so s = S (1 + sigma), |sigma| <= gamma_L (1 + eps)
//   + eps + V 2^-149, eps = 2u + 1.0001 u G, gamma_L = L u / (1 - L u); softmax_i = fl(e_i / s):
//   relative error <= (1 + eps_i)(1 + u) / (1 - sigma) - 1, plus 2^-147 absolute for results that
//   are subnormal or flushed; log_softmax_i = fl(d_i - log_invariant(s)): absolute error <= u g_i +
//   2u (ln V + 2 sigma)
//   + 1.01 sigma + u (g_i + ln V + 1), the last term the final rounding.
// A 16-bit output adds its own rounding: 2^-8 (bfloat16) or 2^-11 (float16) relative, plus half
// its least subnormal absolute (2^-134, 2^-25).
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/common/status.h"
#include "kernels/softmax/invariant_softmax_order.h"

namespace samebits::kernels::softmax_bound {

inline constexpr double kU = 1.0 / 16777216.0;  // 2^-24

inline double rounding_of(DType out) {
  return out == DType::bf16 ? 1.0 / 256.0 : out == DType::f16 ? 1.0 / 2048.0 : 0.0;
}
inline double least_of(DType out) {
  return out == DType::bf16  ? std::ldexp(1.0, -134)
         : out == DType::f16 ? std::ldexp(1.0, -25)
                             : 0.0;
}

// sigma above, the relative error of a row's sum of exponentials.
inline double sum_error(std::int64_t length, double largest_gap) {
  const double eps = softmax_order::kExpMaxUlp * 2.0 * kU + 1.0001 * kU * largest_gap;
  const double l =
      static_cast<double>((length + softmax_order::kPartials - 1) / softmax_order::kPartials + 12);
  const double gamma = l * kU / (1.0 - l * kU);
  return gamma * (1.0 + eps) + eps + static_cast<double>(length) * std::ldexp(1.0, -149);
}

// The largest |softmax_i - exact| for an element of gap g = m - x_i whose exact result is `exact`.
inline double softmax_error(double exact, double gap, std::int64_t length, double largest_gap,
                            DType out) {
  const double sigma = sum_error(length, largest_gap);
  const double eps = softmax_order::kExpMaxUlp * 2.0 * kU + 1.0001 * kU * gap;
  const double rel = (1.0 + eps) * (1.0 + kU) * (1.0 + kU) / (1.0 - sigma) - 1.0;
  const double r16 = rounding_of(out);
  return std::fabs(exact) * ((1.0 + rel) * (1.0 + r16) - 1.0) + std::ldexp(1.0, -147) +
         least_of(out);
}

// The largest |log_softmax_i - exact| (absolute: log-probabilities).
inline double log_softmax_error(double exact, double gap, std::int64_t length, double largest_gap,
                                DType out) {
  const double sigma = sum_error(length, largest_gap);
  const double log_v = std::log(static_cast<double>(length));
  const double a = kU * gap + softmax_order::kLogMaxUlp * 2.0 * kU * (log_v + 2.0 * sigma) +
                   1.01 * sigma + kU * (gap + log_v + 1.0);
  return a + rounding_of(out) * (std::fabs(exact) + a) + least_of(out);
}

}  // namespace samebits::kernels::softmax_bound
