// The softmax order header's exp, log and 16-bit roundings on the CPU: exp and log within their
// stated ulp of float64 over a sweep of float32 inputs and at the edges, and the roundings to
// bfloat16 and float16 equal to c10's (round to nearest even) for a sweep of floats.
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/softmax/invariant_softmax.h"
#include "kernels/softmax/invariant_softmax_order.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace invariant_softmax_math_test_file {}
using namespace invariant_softmax_math_test_file;
namespace invariant_softmax_math_test_file {

namespace so = kernels::softmax_order;

// |got - exact| in ulps of the float32 nearest `exact` (2^-149 below the normals).
double ulp_error(float got, double exact) {
  const double a = std::fabs(static_cast<double>(static_cast<float>(exact)));
  double ulp = static_cast<double>(
                   std::nextafter(static_cast<float>(a), std::numeric_limits<float>::infinity())) -
               a;
  if (a < static_cast<double>(std::numeric_limits<float>::min())) ulp = std::ldexp(1.0, -149);
  return std::fabs(static_cast<double>(got) - exact) / ulp;
}

struct Worst {
  double ulp = 0.0;
  float at = 0.0f;
  void see(double e, float x) {
    if (e > ulp) {
      ulp = e;
      at = x;
    }
  }
};

// Every 251st bit pattern: about 17 million floats, every binade of both signs.
template <typename F>
void sweep(F&& f) {
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); b += 251) {
    f(so::from_bits(static_cast<std::uint32_t>(b)));
  }
}

TEST(SoftmaxMathTest, ExpWithinItsUlpBound) {
  Worst worst;
  sweep([&](float x) {
    if (so::is_nan(x) || x > 88.72f || x < -103.9f) return;
    worst.see(ulp_error(kernels::softmax_exp_cpu(x), std::exp(static_cast<double>(x))), x);
  });
  EXPECT_LE(worst.ulp, so::kExpMaxUlp) << "at x = " << worst.at;
  EXPECT_GT(worst.ulp, 0.5) << "a sweep this wide should meet a result that is not correctly "
                               "rounded; is the sweep running?";
}

// The twin's exp on this host (the fused multiply-add instruction where the CPU has one) gives
// the bits of the header's exp as compiled here (the C library's fmaf): both round once.
TEST(SoftmaxMathTest, HostFmaPathGivesTheLibraryFmaBits) {
  std::int64_t differ = 0, seen = 0;
  sweep([&](float x) {
    const float a = kernels::softmax_exp_cpu(x), b = so::exp_invariant(x);
    ++seen;
    if (so::is_nan(a) ? !so::is_nan(b) : so::to_bits(a) != so::to_bits(b)) ++differ;
  });
  EXPECT_EQ(differ, 0) << "of " << seen;
}

TEST(SoftmaxMathTest, LogWithinItsUlpBound) {
  Worst worst;
  sweep([&](float x) {
    if (!(x > 0.0f) || std::isinf(x)) return;
    worst.see(ulp_error(kernels::softmax_log_cpu(x), std::log(static_cast<double>(x))), x);
  });
  EXPECT_LE(worst.ulp, so::kLogMaxUlp) << "at x = " << worst.at;
}

TEST(SoftmaxMathTest, ExpEdges) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(so::to_bits(kernels::softmax_exp_cpu(0.0f)), so::to_bits(1.0f));
  EXPECT_EQ(so::to_bits(kernels::softmax_exp_cpu(-0.0f)), so::to_bits(1.0f));
  EXPECT_EQ(so::to_bits(kernels::softmax_exp_cpu(-inf)), 0u);  // a -inf logit: probability +0
  EXPECT_EQ(so::to_bits(kernels::softmax_exp_cpu(-1000.0f)), 0u);
  EXPECT_EQ(so::to_bits(kernels::softmax_exp_cpu(-104.5f)), 0u);
  EXPECT_EQ(kernels::softmax_exp_cpu(inf), inf);
  EXPECT_EQ(kernels::softmax_exp_cpu(89.0f), inf);
  EXPECT_TRUE(std::isnan(kernels::softmax_exp_cpu(std::nanf(""))));
  // Subnormal results are rounded once: exp(-100) = 3.72e-44 = 26.6 least subnormals.
  EXPECT_LE(ulp_error(kernels::softmax_exp_cpu(-100.0f), std::exp(-100.0)), so::kExpMaxUlp);
  EXPECT_GT(kernels::softmax_exp_cpu(-103.0f), 0.0f);
}

TEST(SoftmaxMathTest, LogEdges) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(so::to_bits(kernels::softmax_log_cpu(1.0f)), 0u);  // exactly +0: lse of one winner
  EXPECT_EQ(kernels::softmax_log_cpu(0.0f), -inf);
  EXPECT_EQ(kernels::softmax_log_cpu(-0.0f), -inf);
  EXPECT_EQ(kernels::softmax_log_cpu(inf), inf);
  EXPECT_TRUE(std::isnan(kernels::softmax_log_cpu(-1.0f)));
  EXPECT_TRUE(std::isnan(kernels::softmax_log_cpu(std::nanf(""))));
  const float least = std::numeric_limits<float>::denorm_min();
  EXPECT_LE(ulp_error(kernels::softmax_log_cpu(least), std::log(static_cast<double>(least))),
            so::kLogMaxUlp);
  EXPECT_LE(ulp_error(kernels::softmax_log_cpu(256000.0f), std::log(256000.0)), so::kLogMaxUlp);
}

TEST(SoftmaxMathTest, MaxIsOrderFree) {
  const float nan = std::nanf("");
  EXPECT_EQ(so::to_bits(so::max_combine(-0.0f, 0.0f)), 0u);
  EXPECT_EQ(so::to_bits(so::max_combine(0.0f, -0.0f)), 0u);
  EXPECT_EQ(so::max_combine(1.0f, nan), 1.0f);
  EXPECT_EQ(so::max_combine(-so::infinity(), 2.0f), 2.0f);
  EXPECT_EQ(so::max_combine(3.0f, 2.0f), 3.0f);
}

TEST(SoftmaxMathTest, SixteenBitRoundingMatchesC10) {
  std::int64_t checked = 0;
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); b += 4099) {
    const float f = so::from_bits(static_cast<std::uint32_t>(b));
    if (so::is_nan(f)) continue;
    const std::uint16_t bf = c10::BFloat16(f).x;
    const std::uint16_t h = c10::Half(f).x;
    ASSERT_EQ(so::float_to_bfloat16_bits(f), bf)
        << "bfloat16 of " << f << " (0x" << std::hex << b << ")";
    ASSERT_EQ(so::float_to_float16_bits(f), h)
        << "float16 of " << f << " (0x" << std::hex << b << ")";
    ++checked;
  }
  EXPECT_GT(checked, 1000000);
  EXPECT_EQ(so::float_to_bfloat16_bits(std::nanf("")), 0x7fc0u);
  EXPECT_EQ(so::float_to_float16_bits(std::nanf("")), 0x7e00u);
  EXPECT_EQ(so::float_to_float16_bits(65519.0f), 0x7bffu);  // below the halfway point to inf
  EXPECT_EQ(so::float_to_float16_bits(65520.0f), 0x7c00u);  // a tie, rounded to even: inf
}

}  // namespace invariant_softmax_math_test_file
}  // namespace samebits
