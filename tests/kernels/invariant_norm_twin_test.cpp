// samebits.rms_norm and add_rms_norm on the CPU: the twin follows the order header (checked
// against a second write-up of it, chunk by chunk as the GPU walks), meets its float64 bound, and
// gives a row the same bits alone, in a batch, strided or misaligned; bad input is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/common/half_round.h"
#include "kernels/norm/binding.h"
#include "kernels/norm/invariant_norm_order.h"
#include "tests/kernels/bit_compare.h"
#include "tests/kernels/expect_error.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace invariant_norm_twin_test_file {}
using namespace invariant_norm_twin_test_file;
namespace invariant_norm_twin_test_file {

namespace order = kernels::norm_order;

struct NormCase {
  at::ScalarType dtype;
  std::int64_t d;
};

std::string case_name(const ::testing::TestParamInfo<NormCase>& info) {
  const auto& c = info.param;
  const char* t = c.dtype == at::kFloat ? "F32" : c.dtype == at::kBFloat16 ? "Bf16" : "F16";
  return std::string(t) + "D" + std::to_string(c.d);
}

at::Tensor draw(std::vector<std::int64_t> shape, at::ScalarType dtype, std::uint64_t seed) {
  at::Generator gen = at::detail::createCPUGenerator(seed);
  return at::randn(shape, gen).mul_(3.0).to(dtype);
}

at::Tensor weight(std::int64_t d, at::ScalarType dtype) {
  at::Generator gen = at::detail::createCPUGenerator(99);
  return at::rand({d}, gen).mul_(0.5).add_(1.0).to(dtype);
}

// A second write-up of the order: lane by lane, chunk by chunk (as the kernel's threads walk),
// then the tree; float32 values of v (already widened), the result unrounded.
std::vector<float> order_oracle(const std::vector<float>& v, const std::vector<float>& w,
                                float eps) {
  const std::int64_t d = static_cast<std::int64_t>(v.size());
  std::vector<float> partial(order::kLanes, 0.0f);
  for (int lane = 0; lane < order::kLanes; ++lane) {
    for (std::int64_t c = 0; order::chunk_start(lane, c) < d; ++c) {
      const std::int64_t s = order::chunk_start(lane, c);
      for (std::int64_t i = s; i < std::min(d, s + order::kChunk); ++i) {
        const float sq = v[i] * v[i];
        partial[lane] = partial[lane] + sq;
      }
    }
  }
  for (int s = order::kLanes / 2; s >= 1; s /= 2)
    for (int t = 0; t < s; ++t) partial[t] = partial[t] + partial[t + s];
  const float ms = partial[0] / static_cast<float>(d);
  const float rstd = 1.0f / std::sqrt(ms + eps);
  std::vector<float> y;
  for (std::int64_t i = 0; i < d; ++i) y.push_back((v[i] * rstd) * w[i]);
  return y;
}

std::vector<float> floats(const at::Tensor& t) {
  const at::Tensor f = t.to(at::kFloat).contiguous();
  return {f.data_ptr<float>(), f.data_ptr<float>() + f.numel()};
}

class NormTwinTest : public ::testing::TestWithParam<NormCase> {};

// The twin's bits are the second write-up's, row by row, rounded once to the dtype.
TEST_P(NormTwinTest, FollowsTheOrder) {
  const auto [dtype, d] = GetParam();
  const at::Tensor x = draw({5, d}, dtype, 1), w = weight(d, dtype);
  const at::Tensor y = invariant_rms_norm(x, w, 1e-6);
  for (std::int64_t r = 0; r < 5; ++r) {
    const auto expected = order_oracle(floats(x[r]), floats(w), 1e-6f);
    const at::Tensor want = at::tensor(expected).to(dtype);
    ASSERT_TRUE(same_bits(want, y[r])) << "row " << r;
  }
}

// Within the order header's bound of the float64 result, plus the dtype's rounding.
TEST_P(NormTwinTest, WithinItsBoundOfFloat64) {
  const auto [dtype, d] = GetParam();
  const at::Tensor x = draw({4, d}, dtype, 2), w = weight(d, dtype);
  const at::Tensor y = invariant_rms_norm(x, w, 1e-6).to(at::kDouble);
  const at::Tensor xd = x.to(at::kDouble), wd = w.to(at::kDouble);
  const at::Tensor ref = xd * at::rsqrt(xd.pow(2).mean(-1, true) + 1e-6) * wd;
  const double u = std::ldexp(1.0, -24);
  const double k = static_cast<double>(d) / order::kLanes + 9;
  const double out = dtype == at::kFloat ? 0 : std::ldexp(1.0, dtype == at::kBFloat16 ? -8 : -11);
  // ms: gamma_k; rstd: half of it plus 1.5 u; y: 2 u; then the output rounding.
  const double rel = k * u / (1 - k * u) / 2 + 3.5 * u + out;
  // Below the dtype's normal range its rounding is absolute: half the smallest subnormal.
  const double tiny = dtype == at::kHalf ? std::ldexp(1.0, -25) : std::ldexp(1.0, -150);
  const at::Tensor excess = (y - ref).abs() - ref.abs() * rel * 1.0000001 - tiny;
  EXPECT_LE(excess.max().item<double>(), 0.0) << "worst excess over the bound";
}

// A row's bits alone, as row 0 or 36 of 37, with a row stride of D + 3, and one element off a
// 16-byte boundary: the same.
TEST_P(NormTwinTest, ARowKeepsItsBits) {
  const auto [dtype, d] = GetParam();
  const at::Tensor batch = draw({37, d}, dtype, 3), w = weight(d, dtype);
  const at::Tensor all = invariant_rms_norm(batch, w, 1e-5);
  const at::Tensor wide = at::zeros({37, d + 3}, batch.options());
  wide.narrow(1, 0, d).copy_(batch);
  const at::Tensor strided = invariant_rms_norm(wide.narrow(1, 0, d), w, 1e-5);
  const at::Tensor shifted = at::zeros({37 * d + 1}, batch.options());
  shifted.narrow(0, 1, 37 * d).copy_(batch.view({-1}));
  const at::Tensor misaligned =
      invariant_rms_norm(shifted.narrow(0, 1, 37 * d).view({37, d}), w, 1e-5);
  for (const std::int64_t r : {std::int64_t{0}, std::int64_t{36}}) {
    const at::Tensor alone = invariant_rms_norm(batch[r], w, 1e-5);
    EXPECT_TRUE(same_bits(alone, all[r])) << "row " << r << " in the batch";
    EXPECT_TRUE(same_bits(alone, strided[r])) << "row " << r << " strided";
    EXPECT_TRUE(same_bits(alone, misaligned[r])) << "row " << r << " misaligned";
  }
  EXPECT_TRUE(same_bits(all, strided));
}

// add_rms_norm: h is ATen's x + residual in the dtype, bit for bit, and y is rms_norm(h).
TEST_P(NormTwinTest, AddFormIsTheSumThenTheNorm) {
  const auto [dtype, d] = GetParam();
  const at::Tensor x = draw({6, d}, dtype, 4), r = draw({6, d}, dtype, 5), w = weight(d, dtype);
  const auto [y, h] = invariant_add_rms_norm(x, r, w, 1e-6);
  EXPECT_TRUE(same_bits(x + r, h));
  EXPECT_TRUE(same_bits(invariant_rms_norm(h, w, 1e-6), y));
  // A row alone: its y and h are its bits inside the batch.
  const auto [y5, h5] = invariant_add_rms_norm(x[5], r[5], w, 1e-6);
  EXPECT_TRUE(same_bits(y5, y[5]));
  EXPECT_TRUE(same_bits(h5, h[5]));
}

INSTANTIATE_TEST_SUITE_P(Grid, NormTwinTest,
                         ::testing::Values(NormCase{at::kFloat, 1}, NormCase{at::kFloat, 7},
                                           NormCase{at::kFloat, 1000}, NormCase{at::kFloat, 4097},
                                           NormCase{at::kBFloat16, 1}, NormCase{at::kBFloat16, 64},
                                           NormCase{at::kBFloat16, 4095},
                                           NormCase{at::kBFloat16, 8192}, NormCase{at::kHalf, 7},
                                           NormCase{at::kHalf, 2048}, NormCase{at::kHalf, 65536}),
                         case_name);

// Control: a sum in one sequential pass (another order) gives other bits for some rows, so the
// bitwise comparison above can fail.
TEST(NormTwinControls, AnotherOrderGivesOtherBits) {
  const std::int64_t d = 4096;
  const at::Tensor x = draw({64, d}, at::kFloat, 6), w = weight(d, at::kFloat);
  const at::Tensor y = invariant_rms_norm(x, w, 1e-6);
  int differ = 0;
  for (std::int64_t r = 0; r < 64; ++r) {
    const auto v = floats(x[r]);
    float s = 0;
    for (float e : v) s = s + e * e;
    const float rstd = 1.0f / std::sqrt(s / static_cast<float>(d) + 1e-6f);
    differ += !same_bits(at::tensor(std::vector<float>{(v[0] * rstd) * floats(w)[0]}),
                         y[r].narrow(0, 0, 1));
  }
  EXPECT_GT(differ, 0);
}

// NaN rows: every NaN out is the one canonical NaN of the dtype.
TEST(NormTwinEdges, NaNIsCanonical) {
  at::Tensor x = at::ones({2, 16}, at::kBFloat16);
  x[0][3] = std::nanf("");
  const at::Tensor y = invariant_rms_norm(x, at::ones({16}, at::kBFloat16), 1e-6);
  EXPECT_EQ(y[0][0].view(at::kShort).item<std::int16_t>(), 0x7fc0);
  EXPECT_FALSE(at::isnan(y[1]).any().item<bool>());
}

TEST(NormTwinEdges, BadInputIsRefused) {
  const at::Tensor x = at::ones({3, 8});
  expect_error([&] { invariant_rms_norm(x, at::ones({7}), 1e-6); }, "w must be [D] = [8]");
  expect_error([&] { invariant_rms_norm(x, at::ones({8}, at::kDouble), 1e-6); },
               "w must have x's dtype");
  expect_error([&] { invariant_rms_norm(x.to(at::kDouble), at::ones({8}, at::kDouble), 1e-6); },
               "takes float32, float16 or bfloat16");
  expect_error(
      [&] {
        invariant_rms_norm(at::ones({3, 0}), at::ones({0}), 1e-6);
      },
      "must not be empty");
  expect_error([&] { invariant_rms_norm(x, at::ones({8}), -1); }, "eps must be finite and >= 0");
  expect_error([&] { invariant_rms_norm(at::ones({}), at::ones({1}), 1e-6); }, "at least one dim");
  expect_error(
      [&] {
        invariant_add_rms_norm(x, at::ones({3, 9}), at::ones({8}), 1e-6);
      },
      "residual must have x's shape");
  expect_error(
      [&] {
        invariant_add_rms_norm(x, at::ones({3, 8}, at::kHalf), at::ones({8}), 1e-6);
      },
      "residual must have x's dtype");
  // No rows: an empty result; an expanded x (overlapping rows) is read correctly.
  EXPECT_EQ(invariant_rms_norm(at::ones({0, 8}), at::ones({8}), 1e-6).numel(), 0);
  const at::Tensor row = draw({8}, at::kFloat, 7);
  EXPECT_TRUE(same_bits(invariant_rms_norm(row.expand({4, 8}), at::ones({8}), 1e-6)[3],
                        invariant_rms_norm(row, at::ones({8}), 1e-6)));
}

}  // namespace invariant_norm_twin_test_file
}  // namespace samebits
