// The one arithmetic order of samebits.rms_norm and add_rms_norm, shared by the CUDA kernel and
// its CPU twin: a row's bits follow from its own values and its length D, nothing else.
#pragma once

#include <cstdint>

#include "kernels/common/half_round.h"
#include "kernels/common/status.h"

#if defined(__CUDACC__)
#define SAMEBITS_NORM_HD __host__ __device__ __forceinline__
#else
#define SAMEBITS_NORM_HD inline
#endif

namespace samebits::kernels::norm_order {

// One row of length D (x, and for add_rms_norm its residual r), its weight w [D], eps:
//   v[i]   = float(x[i])                       rms_norm
//   v[i]   = float(round_to_dtype(float(x[i]) + float(r[i])))   add_rms_norm (h[i], written out)
//   lane t (t = 0 .. kLanes - 1) owns the elements i with (i / kChunk) mod kLanes == t, the
//   chunks of kChunk consecutive elements dealt round-robin; it adds its elements' squares in
//   ascending i, each product rounded, from +0:  p[t] = (...((0 + v*v) + v*v) ...)
//   the kLanes partials are added pairwise: for s = kLanes / 2, ..., 2, 1: p[t] = p[t] + p[t + s]
//   for t < s (a fixed tree)
//   ms     = p[0] / float(D)                   (IEEE division)
//   rstd   = 1 / sqrt(ms + float(eps))          (IEEE sqrt and division; not rsqrt, which is
//                                               approximate and differs between GPU and CPU)
//   y[i]   = round_to_dtype((v[i] * rstd) * float(w[i]))
// with round_to_dtype to nearest even (kernels/common/half_round.h; float32: none), every
// operation one float32 rounding (no contraction: kernels build with -fmad=false, the twin with
// -ffp-contract=off). The lanes and chunks are defined over element indices: the kernel's vector
// loads read a chunk at once where the row is 16-byte aligned and element by element elsewhere,
// with the same sums either way. Nothing here reads the number of rows, a row's position, its
// stride or its address, so batching, slicing, padding or realigning a row cannot change its
// bits; the CUDA kernel gives every row its own warp or threads (a thread may stand for several
// logical lanes, each keeping its own partial: invariant_norm.cu) and the twin its own loop.
//
// Error against float64 (one row, n = D): the partial sums and the tree add at most
// (n / kLanes + log2 kLanes) roundings to a sum of positive terms, so ms has a relative error of at
// most gamma_(n / kLanes + 9) with gamma_k = k u / (1 - k u), u = 2^-24; rstd adds 1.5 u (sqrt
// halves ms's error, then sqrt and division round once each); y adds 2 u before its rounding to
// the dtype (half an ulp of bf16 or f16, relative; below the normal range half the smallest
// subnormal, absolute: 2^-25 for f16). The reference check compares within the contract's
// tolerance, which this bound meets with room to spare for D <= 65536.
inline constexpr int kLanes = 256;  // logical lanes: the partials of the kernel and the twin
inline constexpr int kChunk = 8;    // consecutive elements per lane turn: 16 bytes of bf16 / f16

// The lane owning element i.
SAMEBITS_NORM_HD int lane_of(std::int64_t i) {
  return static_cast<int>((i / kChunk) % kLanes);
}

// The first element of lane t's c-th chunk.
SAMEBITS_NORM_HD std::int64_t chunk_start(int lane, std::int64_t c) {
  return (c * kLanes + lane) * kChunk;
}

SAMEBITS_NORM_HD float finish_rstd(float sum_of_squares, std::int64_t d, float eps) {
  const float ms = sum_of_squares / static_cast<float>(d);
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(1.0f, __fsqrt_rn(__fadd_rn(ms, eps)));
#else
  return 1.0f / __builtin_sqrtf(ms + eps);
#endif
}

SAMEBITS_NORM_HD float scale(float v, float rstd, float w) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(__fmul_rn(v, rstd), w);
#else
  return (v * rstd) * w;
#endif
}

// The element types: storage, its exact float32 value, and the one rounding back (NaNs
// canonical: kernels/common/half_round.h).
template <DType T>
struct Elem;
template <>
struct Elem<DType::f32> {
  using type = float;
  static SAMEBITS_NORM_HD float widen(float v) { return v; }
  static SAMEBITS_NORM_HD float narrow(float v) { return half_round::canonical(v); }
};
template <>
struct Elem<DType::bf16> {
  using type = std::uint16_t;
  static SAMEBITS_NORM_HD float widen(std::uint16_t v) { return half_round::from_bfloat16(v); }
  static SAMEBITS_NORM_HD std::uint16_t narrow(float v) { return half_round::to_bfloat16(v); }
};
template <>
struct Elem<DType::f16> {
  using type = std::uint16_t;
  static SAMEBITS_NORM_HD float widen(std::uint16_t v) { return half_round::from_float16(v); }
  static SAMEBITS_NORM_HD std::uint16_t narrow(float v) { return half_round::to_float16(v); }
};

SAMEBITS_NORM_HD float square_add(float acc, float v) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(acc, __fmul_rn(v, v));
#else
  return acc + v * v;
#endif
}

}  // namespace samebits::kernels::norm_order
