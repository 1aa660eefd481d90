// Rounding a float32 to bfloat16 or float16 (to nearest, ties to even) and widening back, the same
// integer steps on the host and on the GPU, so a CPU twin's 16-bit outputs are its kernel's bits.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define SAMEBITS_HALF_HD __host__ __device__ __forceinline__
#else
#define SAMEBITS_HALF_HD inline
#endif

namespace samebits::kernels::half_round {

SAMEBITS_HALF_HD std::uint32_t bits_of(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
#endif
}

SAMEBITS_HALF_HD float float_of(std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(b);
#else
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
#endif
}

// Ties to even; every NaN becomes the one quiet NaN 0x7fc0 (CPU and GPU arithmetic make NaNs of
// different signs and payloads; their rounded bits must not differ).
SAMEBITS_HALF_HD std::uint16_t to_bfloat16(float f) {
  const std::uint32_t b = bits_of(f);
  if ((b & 0x7fffffffu) > 0x7f800000u) return 0x7fc0u;
  return static_cast<std::uint16_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

// Ties to even, subnormals included; from 65520 in magnitude: infinity; every NaN: 0x7e00.
SAMEBITS_HALF_HD std::uint16_t to_float16(float f) {
  const std::uint32_t b = bits_of(f);
  const std::uint32_t sign = (b >> 16) & 0x8000u, mag = b & 0x7fffffffu;
  if (mag > 0x7f800000u) return 0x7e00u;
  if (mag >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65520
  if (mag < 0x38800000u) {                                                    // below 2^-14
    if (mag <= 0x33000000u) return static_cast<std::uint16_t>(sign);          // <= 2^-25: to +-0
    const std::uint32_t e = mag >> 23, m = (mag & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126u - e;  // units of 2^-24
    std::uint32_t q = m >> shift;
    const std::uint32_t rest = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rest > half || (rest == half && (q & 1u))) ++q;
    return static_cast<std::uint16_t>(sign | q);
  }
  const std::uint32_t r = mag - (112u << 23);  // float32 exponent bias 127 -> float16's 15
  std::uint32_t q = r >> 13;
  const std::uint32_t rest = r & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (q & 1u))) ++q;
  return static_cast<std::uint16_t>(sign | q);
}

// float32 results: every NaN as CUDA's arithmetic makes it (0x7fffffff).
SAMEBITS_HALF_HD float canonical(float f) {
  return f != f ? float_of(0x7fffffffu) : f;
}

// Exact widening (every 16-bit value is a float32).
SAMEBITS_HALF_HD float from_bfloat16(std::uint16_t h) {
  return float_of(std::uint32_t{h} << 16);
}

SAMEBITS_HALF_HD float from_float16(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t{h & 0x8000u} << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1fu) return float_of(sign | 0x7f800000u | (m << 13));
  if (e != 0) return float_of(sign | ((e + 112u) << 23) | (m << 13));
  // Zero or subnormal: m * 2^-24, exact in float32 (a product by a power of two).
  const float v = static_cast<float>(m) * 5.9604644775390625e-08f;
  return sign ? -v : v;
}

}  // namespace samebits::kernels::half_round
