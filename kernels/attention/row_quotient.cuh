// out = acc / l for the many accumulators of a row and its one l, correctly rounded as IEEE
// division rounds, with one reciprocal per row and three operations per element, no branch each.
#pragma once

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
  // |a| in [2^-60, 2^60) (0x21800000 to 0x5d800000).
  __device__ static bool in_range(float a) {
    return (__float_as_uint(a) & 0x7fffffffu) - 0x21800000u < 0x3c000000u;
  }
  // a / l, correctly rounded where usable(l) and in_range(a).
  __device__ float of(float a) const {
    const float q = __fmul_rn(a, r);
    return __fmaf_rn(r, __fmaf_rn(-l, q, a), q);
  }
};

}  // namespace samebits::kernels::tensor_core
