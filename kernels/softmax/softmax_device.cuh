// What the softmax kernels share on the device: 16-bit element types, widening and rounding, and
// loads and stores of four consecutive elements, vector or scalar by alignment, the same values.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

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

// y = e^r and the k of y * 2^k for x, as exp_invariant's first steps (exp_device says how).
__device__ __forceinline__ float exp_split(float x, std::int32_t& k) {
  const float magic = 12582912.0f;
  const float t = __fmaf_rn(x, 1.44269502162933349609375f, magic);
  k = static_cast<std::int32_t>(__float_as_uint(t) - 0x4b400000u);
  return exp_reduced(x, t - magic);
}

// exp_invariant (invariant_softmax_order.h) with the same operations on the same values, without
// branches: k read off the bits of t = x / ln 2 + 1.5 * 2^23 instead of converted from n (t lies
// in [2^23, 2^24), where its ulp is 1, so its bits less those of 1.5 * 2^23 are the integer n;
// the float-to-int conversion runs at an eighth of the rate of a float add on Hopper), y * 2^k
// split at k >> 1 instead of k / 2 (any split whose first product is exact and whose factors are
// normal rounds once, to the same float), and the ranges chosen by selects after the arithmetic.
// The same bits as exp_invariant for every non-NaN float32, a NaN for a NaN
// (SoftmaxCudaEdgeTest.ExpAndLogMatchTheTwinBitwise runs this one).
__device__ __forceinline__ float exp_device(float x) {
  std::int32_t k;
  const float y = exp_split(x, k);
  const std::int32_t k1 = k >> 1;
  float e = (y * pow2(k1)) * pow2(k - k1);
  e = x < -104.0f ? 0.0f : e;
  e = x > 88.72283935546875f ? infinity() : e;
  return e;
}

// exp_device on its softmax domain, x - m <= 0 (or NaN), in two parts. exp_normal: for -86 <= x
// <= 0, y * 2^k is a normal float (k >= -125, y >= 2^-0.5), so it is y's bits with k added to the
// exponent, exactly the twin's two multiplies. exp_nonpositive: lower (and NaN) x takes those
// multiplies. The same bits as exp_invariant for every x <= 0 and a NaN for a NaN
// (ExpAndLogMatchTheTwinBitwise runs exp_nonpositive on x <= 0). Kernels that vote a row onto
// exp_normal when none of its x is below -86 or NaN skip the branch per element.
__device__ __forceinline__ bool exp_normal_range(float x) {
  return x >= -86.0f;  // false for NaN
}
__device__ __forceinline__ float exp_normal(float x) {
  std::int32_t k;
  const float y = exp_split(x, k);
  return __uint_as_float(__float_as_uint(y) + (static_cast<std::uint32_t>(k) << 23));
}
__device__ __forceinline__ float exp_nonpositive(float x) {
  std::int32_t k;
  const float y = exp_split(x, k);
  float e = __uint_as_float(__float_as_uint(y) + (static_cast<std::uint32_t>(k) << 23));
  if (!exp_normal_range(x)) {
    const std::int32_t k1 = k >> 1;
    e = x < -104.0f ? 0.0f : __fmul_rn(__fmul_rn(y, pow2(k1)), pow2(k - k1));
  }
  return e;
}

// max_combine's value: fmaxf (PTX max.f32) is IEEE 754-2019 maximumNumber, a NaN ignored and +0
// above -0 (SoftmaxCudaEdgeTest.MaxIsMaxCombine checks every pair of special values).
__device__ __forceinline__ float max_device(float a, float b) {
  return fmaxf(a, b);
}

// Round to nearest even by the hardware (cvt.rn): the order header's float_to_bfloat16_bits and
// float_to_float16_bits for every non-NaN float
// (SoftmaxCudaEdgeTest.HardwareRoundingMatchesTheOrder checks all 2^32). NaN results only come as
// whole rows (a NaN sum), written apart.
__device__ __forceinline__ std::uint32_t pack2(float a, float b, const Bf16*) {
  const __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
  return *reinterpret_cast<const std::uint32_t*>(&h);
}
__device__ __forceinline__ std::uint32_t pack2(float a, float b, const F16*) {
  const __half2 h = __floats2half2_rn(a, b);
  return *reinterpret_cast<const std::uint32_t*>(&h);
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

// A row's quads when it is aligned and its length a multiple of 4 ("whole"): a quad is in the
// row or past its end, one vector load (or -inf) each; other rows go element by element.
__device__ __forceinline__ float4 neg_inf_quad(const float*) {
  const float i = -infinity();
  return make_float4(i, i, i, i);
}
template <typename T>
__device__ __forceinline__ uint2 neg_inf_quad(const T*) {
  const std::uint32_t b = std::is_same<T, Bf16>::value ? 0xff80ff80u : 0xfc00fc00u;
  return make_uint2(b, b);
}
template <typename In>
__device__ __forceinline__ void load4w(const In* row, std::int64_t i, std::int64_t n, bool whole,
                                       float v[4]) {
  if (whole) {
    unpack(i < n ? load_quad(row + i) : neg_inf_quad(row), row, v);
  } else {
#pragma unroll
    for (int j = 0; j < 4; ++j) v[j] = i + j < n ? widen(row[i + j]) : -infinity();
  }
}

// Stores of a row whose sum is not NaN (no result is NaN): hardware rounding, vector stores on a
// whole row. A NaN row goes through store_nan4.
__device__ __forceinline__ void store_fast4(float* row, std::int64_t i, std::int64_t n, bool whole,
                                            const float r[4]) {
  if (whole) {
    if (i < n) *reinterpret_cast<float4*>(row + i) = make_float4(r[0], r[1], r[2], r[3]);
  } else {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (i + j < n) row[i + j] = r[j];
    }
  }
}
template <typename T>
__device__ __forceinline__ void store_fast4(T* row, std::int64_t i, std::int64_t n, bool whole,
                                            const float r[4]) {
  if (whole) {
    if (i < n)
      *reinterpret_cast<uint2*>(row + i) =
          make_uint2(pack2(r[0], r[1], row), pack2(r[2], r[3], row));
  } else {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (i + j < n) narrow(r[j], &row[i + j]);
    }
  }
}
template <typename Out>
__device__ __forceinline__ void store_nan4(Out* row, std::int64_t i, std::int64_t n) {
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    if (i + j < n) narrow(canonical_nan(), &row[i + j]);
  }
}
// The results of a quad: softmax's e * (1 / s), log_softmax's (x - m) - log s, stored.
template <bool kLog, typename Out>
__device__ __forceinline__ void finish4(Out* row, std::int64_t i, std::int64_t n, bool whole,
                                        bool nan_row, const float held[4], float inverse_s,
                                        float log_s) {
  if (nan_row) {
    store_nan4(row, i, n);
    return;
  }
  float r[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) r[j] = kLog ? held[j] - log_s : held[j] * inverse_s;
  store_fast4(row, i, n, whole, r);
}

template <typename T>
__host__ __device__ __forceinline__ bool quad_aligned(const T* p) {
  return reinterpret_cast<std::uintptr_t>(p) % (4 * sizeof(T)) == 0;
}

}  // namespace samebits::kernels::softmax_device
