// The one order of every floating-point operation of samebits' softmax and log_softmax over a row,
// shared by the CUDA kernel and its CPU twin, with the exp and log both use (same bits on both).
//
// Why a row's bits cannot depend on anything but the row: every quantity below is a function of
// the row's values and its length V alone. The element-to-partial map is i mod kPartials (its
// index within the row, never its address, the row's number, the row count, a stride or the
// alignment); vector loads, when a row happens to be aligned, read the same elements into the same
// partials as scalar loads. Trailing -inf elements add exact +0 to their partials, so a row padded
// on the right with -inf gives the same bits as the row alone.
//
// A row x[0 .. V) (16-bit inputs widened exactly to float32):
//  1. m = the largest non-NaN x_i, +0 above -0, -inf if none (max_combine: order-free; IEEE
//     754-2019 maximumNumber, which the GPU's fmaxf is: softmax_device.cuh).
//  2. kPartials = 4096 float32 partials, all +0.0f; partial p adds, in ascending i, e_i =
//     exp_invariant(x_i - m) for every i with i mod 4096 == p (plain float32 adds).
//  3. s = a fixed pairwise tree over the partials (the twin's tree_sum, the kernels' block_tree
//     and butterfly_sum): logical thread t < 1024 owns partials 4t .. 4t+3: q_t = (P_4t + P_4t+1) +
//     (P_4t+2 + P_4t+3); within each 32 consecutive t, for h = 16, 8, 4, 2, 1: q_t = q_t + q_{t+h}
//     (t mod 32 < h); the 32 warp sums W_w likewise (h = 16 .. 1); s = W_0.
//  4. softmax_i = e_i * r with r = 1 / s (one IEEE division per row; e_i recomputed or kept from
//     step 2, same bits);
//     log_softmax_i = (x_i - m) - log_invariant(s).
//  5. A NaN result is stored as the canonical NaN (float32 0x7fffffff, bfloat16 0x7fc0, float16
//     0x7e00); 16-bit outputs round to nearest even (float_to_bfloat16_bits /
//     float_to_float16_bits).
// NaN rules: a NaN input makes its row's sum NaN, so every output of that row is NaN; so do a +inf
// input (inf - inf) and a row of only -inf (m = -inf, -inf - -inf). A -inf input gives 0 and -inf.
//
// exp_invariant uses +, -, *, fused multiply-adds (IEEE fusedMultiplyAdd: the CPU's std::fma
// and the GPU's fmaf, one rounding each, so both sides give the same bits), one float-to-int
// conversion of an integral value and exact bit manipulation; log_invariant the same without the
// fused multiply-adds. Nothing else is contracted (kernels build with -fmad=false, the CPU side
// with -ffp-contract=off). They are Cephes' expf and logf polynomials (S. Moshier) with Cody-Waite
// range reduction. Against float64, exp_invariant is within 0.978 ulp of e^x over every float32
// of its domain (x in [-103.9, 88.7], subnormal results in ulps of 2^-149; fusing the last two
// steps as well would give 1.01 ulp) and log_invariant within 0.800 ulp of ln x over every 61st
// positive finite float: kExpMaxUlp and kLogMaxUlp, both 1, are the bounds the tests
// (tests/kernels/invariant_softmax_math_test.cpp, every 251st float) and softmax_error_bound.h
// hold them to.
// Left padding is not invariant: it moves elements to other partials.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define SAMEBITS_SOFTMAX_HD __host__ __device__ __forceinline__
#else
#define SAMEBITS_SOFTMAX_HD inline
#endif

namespace samebits::kernels::softmax_order {

inline constexpr int kVector = 4;                            // partials per logical thread
inline constexpr int kLogicalThreads = 1024;                 // of the tree
inline constexpr int kPartials = kVector * kLogicalThreads;  // 4096
inline constexpr int kWarp = 32;
inline constexpr int kWarps = kLogicalThreads / kWarp;  // 32 warp sums
inline constexpr double kExpMaxUlp = 1.0;
inline constexpr double kLogMaxUlp = 1.0;

SAMEBITS_SOFTMAX_HD float from_bits(std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(b);
#else
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
#endif
}

SAMEBITS_SOFTMAX_HD std::uint32_t to_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
#endif
}

SAMEBITS_SOFTMAX_HD bool is_nan(float x) {
  return (to_bits(x) & 0x7fffffffu) > 0x7f800000u;
}

SAMEBITS_SOFTMAX_HD float infinity() {
  return from_bits(0x7f800000u);
}
SAMEBITS_SOFTMAX_HD float canonical_nan() {
  return from_bits(0x7fffffffu);
}

// The larger of a and b, NaN ignored (a never NaN: start from -inf), +0 above -0: a total choice,
// so any grouping of a row's elements gives the same m.
SAMEBITS_SOFTMAX_HD float max_combine(float a, float b) {
  const bool b_wins = b > a || (b == a && (to_bits(a) >> 31) != 0 && (to_bits(b) >> 31) == 0);
  return b_wins ? b : a;
}

// a * b + c, rounded once.
SAMEBITS_SOFTMAX_HD float fma_rn(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

// 2^k for -126 <= k <= 127, built from its bits.
SAMEBITS_SOFTMAX_HD float pow2(std::int32_t k) {
  return from_bits(static_cast<std::uint32_t>(k + 127) << 23);
}

// e^(x - n ln 2) for n = x / ln 2 rounded to an integer: r = x - n ln 2 with ln 2 split as
// 0.693359375 (9 bits: n * it is exact) and -2.12194440e-4, then Cephes' polynomial,
// y = (p(r) r^2 + r) + 1 (unfused: fusing it gives 1.01 ulp). The kernels share it.
SAMEBITS_SOFTMAX_HD float exp_reduced(float x, float n) {
  float r = fma_rn(n, -0.693359375f, x);
  r = fma_rn(n, 2.12194440e-4f, r);
  float p = 1.9875691500e-4f;
  p = fma_rn(p, r, 1.3981999507e-3f);
  p = fma_rn(p, r, 8.3334519073e-3f);
  p = fma_rn(p, r, 4.1665795894e-2f);
  p = fma_rn(p, r, 1.6666665459e-1f);
  p = fma_rn(p, r, 5.0000001201e-1f);
  return (p * (r * r) + r) + 1.0f;
}

// e^x. NaN -> NaN, x > 88.7228394 -> +inf, x < -104 -> +0 (below half the least subnormal).
SAMEBITS_SOFTMAX_HD float exp_invariant(float x) {
  if (is_nan(x)) return x;
  if (x > 88.72283935546875f) return infinity();
  if (x < -104.0f) return 0.0f;
  // n = x / ln 2 rounded to an integer: x / ln 2 + 1.5 * 2^23 lies where the float32 ulp is 1,
  // so the fused multiply-add's one rounding is to an integer; removing 1.5 * 2^23 is exact.
  const float magic = 12582912.0f;
  const float n = fma_rn(x, 1.44269502162933349609375f, magic) - magic;
  const std::int32_t k = static_cast<std::int32_t>(n);  // exact: n is an integer in [-150, 128]
  const float y = exp_reduced(x, n);
  // y * 2^k in two exact power-of-two steps (each factor normal), so that a subnormal or infinite
  // result is rounded once, by the second multiply.
  const std::int32_t k1 = k / 2;
  return (y * pow2(k1)) * pow2(k - k1);
}

// ln x. NaN -> NaN, x < 0 -> NaN, +-0 -> -inf, +inf -> +inf.
SAMEBITS_SOFTMAX_HD float log_invariant(float x) {
  if (is_nan(x)) return x;
  if (x < 0.0f) return canonical_nan();
  if (x == 0.0f) return -infinity();
  if (x == infinity()) return x;
  std::int32_t e = 0;
  if (x < 1.17549435e-38f) {  // subnormal: scale into the normals exactly
    x = x * 8388608.0f;
    e = -23;
  }
  const std::uint32_t b = to_bits(x);
  e += static_cast<std::int32_t>(b >> 23) - 126;  // x = m * 2^e, m in [0.5, 1)
  float m = from_bits((b & 0x007fffffu) | 0x3f000000u);
  float f;
  if (m < 0.707106781186547524f) {
    e -= 1;
    f = (m + m) - 1.0f;  // both exact
  } else {
    f = m - 1.0f;  // exact (Sterbenz)
  }
  const float z = f * f;
  float y = 7.0376836292e-2f;
  y = y * f - 1.1514610310e-1f;
  y = y * f + 1.1676998740e-1f;
  y = y * f - 1.2420140846e-1f;
  y = y * f + 1.4249322787e-1f;
  y = y * f - 1.6668057665e-1f;
  y = y * f + 2.0000714765e-1f;
  y = y * f - 2.4999993993e-1f;
  y = y * f + 3.3333331174e-1f;
  y = (y * f) * z;
  const float fe = static_cast<float>(e);
  y = y + fe * -2.12194440e-4f;
  y = y - 0.5f * z;
  float result = f + y;
  result = result + fe * 0.693359375f;
  return result;
}

// Step 4 for one element; inverse_s = 1.0f / s, once per row.
SAMEBITS_SOFTMAX_HD float softmax_value(float x, float m, float inverse_s) {
  return exp_invariant(x - m) * inverse_s;
}
SAMEBITS_SOFTMAX_HD float log_softmax_value(float x, float m, float log_s) {
  return (x - m) - log_s;
}

SAMEBITS_SOFTMAX_HD float canonical(float r) {
  return is_nan(r) ? canonical_nan() : r;
}

// float32 to bfloat16 bits, round to nearest even; NaN -> 0x7fc0.
SAMEBITS_SOFTMAX_HD std::uint16_t float_to_bfloat16_bits(float f) {
  const std::uint32_t b = to_bits(f);
  if ((b & 0x7fffffffu) > 0x7f800000u) return 0x7fc0u;
  return static_cast<std::uint16_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

// float32 to float16 bits, round to nearest even (overflow to inf, subnormals rounded once); NaN
// -> 0x7e00.
SAMEBITS_SOFTMAX_HD std::uint16_t float_to_float16_bits(float f) {
  const std::uint32_t b = to_bits(f);
  const std::uint32_t sign = (b >> 16) & 0x8000u;
  const std::uint32_t a = b & 0x7fffffffu;
  if (a > 0x7f800000u) return 0x7e00u;
  if (a >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65520: inf
  if (a >= 0x38800000u) {  // a normal float16 (>= 2^-14)
    const std::uint32_t r = a - (112u << 23);
    return static_cast<std::uint16_t>(sign | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13));
  }
  const std::int32_t shift = 126 - static_cast<std::int32_t>(a >> 23);  // value = m 2^-shift ulps
  if (shift > 24) return static_cast<std::uint16_t>(sign);
  const std::uint32_t mant = (a & 0x007fffffu) | 0x00800000u;
  std::uint32_t q = mant >> shift;
  const std::uint32_t rem = mant & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1u) != 0)) q += 1;
  return static_cast<std::uint16_t>(sign | q);
}

}  // namespace samebits::kernels::softmax_order
