// What the softmax kernels share on the device: 16-bit element types, widening and rounding, and
// loads and stores of four consecutive elements, vector or scalar by alignment, the same values.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/softmax/invariant_softmax_order.h"

namespace samebits::kernels::softmax_device {

using namespace softmax_order;

__device__ __forceinline__ float widen(float v) {
  return v;
}
struct Bf16 {
  std::uint16_t bits;
};
struct F16 {
  std::uint16_t bits;
};
__device__ __forceinline__ float widen(Bf16 v) {
  return __uint_as_float(std::uint32_t{v.bits} << 16);
}
__device__ __forceinline__ float widen(F16 v) {
  return __half2float(__ushort_as_half(v.bits));
}

__device__ __forceinline__ void narrow(float r, float* out) {
  *out = canonical(r);
}
__device__ __forceinline__ void narrow(float r, Bf16* out) {
  out->bits = float_to_bfloat16_bits(r);
}
__device__ __forceinline__ void narrow(float r, F16* out) {
  out->bits = float_to_float16_bits(r);
}

// exp_invariant (invariant_softmax_order.h) with the same operations on the same values, but k
// read off the bits of t = x / ln 2 + 1.5 * 2^23 instead of converted from n = t - 1.5 * 2^23:
// t lies in [2^23, 2^24), where its ulp is 1, so its bits less those of 1.5 * 2^23 are the integer
// n, exactly static_cast<int32_t>(n) (the float-to-int conversion runs at an eighth of the rate of
// a float add on Hopper). The same bits as exp_invariant for every float32
// (SoftmaxCudaEdgeTest.ExpAndLogMatchTheTwinBitwise runs this one).
__device__ __forceinline__ float exp_device(float x) {
  if (is_nan(x)) return x;
  if (x > 88.72283935546875f) return infinity();
  if (x < -104.0f) return 0.0f;
  const float magic = 12582912.0f;
  const float t = x * 1.44269502162933349609375f + magic;
  const float n = t - magic;
  const std::int32_t k = static_cast<std::int32_t>(__float_as_uint(t) - 0x4b400000u);
  float r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float y = (p * (r * r) + r) + 1.0f;
  const std::int32_t k1 = k / 2;
  return (y * pow2(k1)) * pow2(k - k1);
}

// Four consecutive elements as one 16-byte (float32) or 8-byte (16-bit) word, taken apart and
// put together in registers.
__device__ __forceinline__ float4 load_quad(const float* p) {
  return *reinterpret_cast<const float4*>(p);
}
__device__ __forceinline__ uint2 load_quad(const Bf16* p) {
  return *reinterpret_cast<const uint2*>(p);
}
__device__ __forceinline__ uint2 load_quad(const F16* p) {
  return *reinterpret_cast<const uint2*>(p);
}
__device__ __forceinline__ void unpack(float4 q, const float*, float v[4]) {
  v[0] = q.x;
  v[1] = q.y;
  v[2] = q.z;
  v[3] = q.w;
}
template <typename T>
__device__ __forceinline__ void unpack(uint2 q, const T*, float v[4]) {
  v[0] = widen(T{static_cast<std::uint16_t>(q.x & 0xffffu)});
  v[1] = widen(T{static_cast<std::uint16_t>(q.x >> 16)});
  v[2] = widen(T{static_cast<std::uint16_t>(q.y & 0xffffu)});
  v[3] = widen(T{static_cast<std::uint16_t>(q.y >> 16)});
}
__device__ __forceinline__ void store_quad(float* p, const float r[4]) {
  *reinterpret_cast<float4*>(p) =
      make_float4(canonical(r[0]), canonical(r[1]), canonical(r[2]), canonical(r[3]));
}
__device__ __forceinline__ std::uint32_t half_bits(float r, const Bf16*) {
  return float_to_bfloat16_bits(r);
}
__device__ __forceinline__ std::uint32_t half_bits(float r, const F16*) {
  return float_to_float16_bits(r);
}
template <typename T>
__device__ __forceinline__ void store_quad(T* p, const float r[4]) {
  *reinterpret_cast<uint2*>(p) = make_uint2(half_bits(r[0], p) | half_bits(r[1], p) << 16,
                                            half_bits(r[2], p) | half_bits(r[3], p) << 16);
}

// Elements i .. i+3 of a row (past its end: -inf). A vector load when the row is aligned for one
// and all four are in the row, scalar loads otherwise: the same values either way.
template <typename In>
__device__ __forceinline__ void load4(const In* row, std::int64_t i, std::int64_t n, bool aligned,
                                      float v[4]) {
  if (aligned && i + 3 < n) {
    unpack(load_quad(row + i), row, v);
  } else {
#pragma unroll
    for (int j = 0; j < 4; ++j) v[j] = i + j < n ? widen(row[i + j]) : -infinity();
  }
}

template <typename Out>
__device__ __forceinline__ void store4(Out* row, std::int64_t i, std::int64_t n, bool aligned,
                                       const float r[4]) {
  if (aligned && i + 3 < n) {
    store_quad(row + i, r);
  } else {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (i + j < n) narrow(r[j], &row[i + j]);
    }
  }
}

template <typename T>
__device__ __forceinline__ bool quad_aligned(const T* p) {
  return reinterpret_cast<std::uintptr_t>(p) % (4 * sizeof(T)) == 0;
}

}  // namespace samebits::kernels::softmax_device
