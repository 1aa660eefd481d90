// out = acc / l for the many accumulators of a row and its one l, correctly rounded as IEEE
// division rounds, with one reciprocal per row and three operations per element, no branch each.
#pragma once

#include <cmath>
#include <cstdint>

namespace samebits::kernels::tensor_core {

// The division nvcc emits for a / l, split at the divisor: r = 1/l to within an ulp (the SFU's
// approximation and one Newton step, once per row), then per element q = a r and the correction
// q + r (a - l q), the residual exact in a fused multiply-add. nvcc guards that sequence with a
// range check per element and a slow path; here the range is decided once per thread: l in
// [2^-32, 2^32) and |a| in [2^-60, 2^60), where quotient, residual and correction are all normal
// numbers. Anything else (zeros, subnormals, infinities, NaN, l = 0) takes the division itself.
// attention_device_checks.cu runs this against IEEE division for the GPU tests.
struct RowQuotient {
  float l, r;

  __device__ explicit RowQuotient(float row_l) : l(row_l) {
    float r0;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r0) : "f"(row_l));
    r = __fmaf_rn(r0, __fmaf_rn(-row_l, r0, 1.0f), r0);
  }
  // l in [2^-32, 2^32) and positive (the bits of 2^-32 are 0x2f800000, of 2^32 0x4f800000).
  __device__ static bool usable(float l) { return __float_as_uint(l) - 0x2f800000u < 0x20000000u; }
  // Every |a| in [lo, hi] in [2^-60, 2^60), lo and hi a MagnitudeSpan's (NaN never is).
  __device__ static bool in_range(float lo, float hi) { return lo >= 0x1p-60f && hi < 0x1p60f; }
  // |a| in that range: the span of one value.
  __device__ static bool in_range(float a) { return in_range(fabsf(a), fabsf(a)); }
  // a / l, correctly rounded where usable(l) and in_range(a).
  __device__ float of(float a) const {
    const float q = __fmul_rn(a, r);
    return __fmaf_rn(r, __fmaf_rn(-l, q, a), q);
  }
};

// The least and greatest |a| of many values, NaN kept (min.NaN, max.NaN), so that one check,
// RowQuotient::in_range(lo, hi), stands for in_range(a) of each: two instructions per value and
// no branch, where a check of each value with the others' && compiles to a branch per pair.
struct MagnitudeSpan {
  float lo = INFINITY, hi = 0.0f;

  __device__ void add(float a) {
    asm("min.NaN.f32 %0, %0, %1;" : "+f"(lo) : "f"(fabsf(a)));
    asm("max.NaN.f32 %0, %0, %1;" : "+f"(hi) : "f"(fabsf(a)));
  }
  __device__ void add(const MagnitudeSpan& o) {
    asm("min.NaN.f32 %0, %0, %1;" : "+f"(lo) : "f"(o.lo));
    asm("max.NaN.f32 %0, %0, %1;" : "+f"(hi) : "f"(o.hi));
  }
  __device__ bool in_range() const { return RowQuotient::in_range(lo, hi); }
};

}  // namespace samebits::kernels::tensor_core
