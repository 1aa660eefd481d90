// Exact float16 and bfloat16 to float32 conversion on the host, for CPU twins that must read
// 16-bit inputs exactly as the CUDA kernels do (every 16-bit value is exact in float32).
#pragma once

#include <cstdint>
#include <cstring>

namespace samebits::kernels {

inline float bits_to_float(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline std::uint32_t float_to_bits(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

inline float bfloat16_to_float(std::uint16_t h) {
  return bits_to_float(std::uint32_t{h} << 16);
}

inline float float16_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t{h & 0x8000u} << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu;
  std::uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return bits_to_float(sign | 0x7f800000u | (mantissa << 13));  // inf, NaN
  if (exponent == 0) {
    if (mantissa == 0) return bits_to_float(sign);  // signed zero
    // Subnormal: shift until the leading one reaches the implicit bit.
    exponent = 113;  // 127 - 15 + 1
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --exponent;
    }
    mantissa &= 0x3ffu;
    return bits_to_float(sign | (exponent << 23) | (mantissa << 13));
  }
  return bits_to_float(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

// The NaN CUDA's float arithmetic returns (0x7fffffff); CPU twins return it too, so that a NaN's
// payload never differs between a kernel and its twin.
inline float canonical_nan() {
  return bits_to_float(0x7fffffffu);
}

}  // namespace samebits::kernels
