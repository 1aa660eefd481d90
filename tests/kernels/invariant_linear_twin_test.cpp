// The CPU twin of samebits.linear / matmul: the order of invariant_linear_order.h written out again
// here (float32 bit for bit, bf16 / f16 steps too), float64 bounds, row invariance, bad input.
#include <ATen/ATen.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>

#include "kernels/linear/binding.h"
#include "tests/kernels/expect_error.h"
#include "tests/kernels/linear_bound_check.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace invariant_linear_twin_test_file {}
using namespace invariant_linear_twin_test_file;
namespace invariant_linear_twin_test_file {

struct TwinCase {
  std::int64_t m, n, k;
  at::ScalarType dtype;
  bool bias;
};
std::string case_name(const TwinCase& c) {
  const std::string d = c.dtype == at::kFloat ? "F32" : c.dtype == at::kHalf ? "F16" : "Bf16";
  return d + "M" + std::to_string(c.m) + "N" + std::to_string(c.n) + "K" + std::to_string(c.k) +
         (c.bias ? "Bias" : "NoBias");
}

struct Inputs {
  at::Tensor x, w;
  std::optional<at::Tensor> bias;
};
// x ~ N(0, 1), w ~ N(0, 1 / K), bias ~ N(0, 1): outputs O(1), in float16's range.
Inputs draw(const TwinCase& c, std::uint64_t seed) {
  at::manual_seed(seed);
  Inputs in;
  in.x = at::randn({c.m, c.k}).to(c.dtype);
  in.w = at::randn({c.n, c.k})
             .div(std::sqrt(static_cast<double>(std::max<std::int64_t>(c.k, 1))))
             .to(c.dtype);
  if (c.bias) in.bias = at::randn({c.n}).to(c.dtype);
  return in;
}

// The order, written out a second time from invariant_linear_order.h: float32 one fma per k; bf16
// / f16 per 16-wide step a float64 sum from the accumulator rounded once; the bias as one float32
// add; one round to nearest even to the dtype (c10's conversions).
at::Tensor written_out(const Inputs& in) {
  const at::Tensor x = in.x.to(at::kFloat).contiguous(), w = in.w.to(at::kFloat).contiguous();
  const std::int64_t m = x.size(0), n = w.size(0), k = x.size(1);
  const bool f32 = in.x.scalar_type() == at::kFloat;
  at::Tensor out = at::empty({m, n}, at::kFloat);
  const auto xa = x.accessor<float, 2>(), wa = w.accessor<float, 2>();
  auto oa = out.accessor<float, 2>();
  const at::Tensor b = in.bias ? in.bias->to(at::kFloat) : at::Tensor();
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      if (f32) {
        for (std::int64_t q = 0; q < k; ++q) acc = std::fma(xa[i][q], wa[j][q], acc);
      } else {
        for (std::int64_t s = 0; s < k; s += 16) {
          double t = acc;
          for (std::int64_t q = s; q < std::min(k, s + 16); ++q)
            t += static_cast<double>(xa[i][q]) * static_cast<double>(wa[j][q]);
          acc = static_cast<float>(t);
        }
      }
      if (in.bias) acc = acc + b[j].item<float>();
      if (in.x.scalar_type() == at::kBFloat16) acc = static_cast<float>(c10::BFloat16(acc));
      if (in.x.scalar_type() == at::kHalf) acc = static_cast<float>(c10::Half(acc));
      oa[i][j] = acc;
    }
  }
  return out.to(in.x.scalar_type());
}

class LinearTwinTest : public ::testing::TestWithParam<TwinCase> {};

TEST_P(LinearTwinTest, FollowsTheWrittenOrder) {
  const Inputs in = draw(GetParam(), 1);
  EXPECT_TRUE(same_bits(invariant_linear(in.x, in.w, in.bias), written_out(in), "twin"));
}

TEST_P(LinearTwinTest, WithinBoundOfFloat64) {
  const TwinCase& c = GetParam();
  const Inputs in = draw(c, 2);
  const at::Tensor out = invariant_linear(in.x, in.w, in.bias);
  const LinearReference r = linear_reference(in.x, in.w, in.bias);
  const kernels::DType dtype = linear_dtype(c.dtype);
  const at::Tensor bound =
      linear_bounds(r, linear_bound::dot_arithmetic(dtype, true), dtype, c.k, c.bias);
  double worst = 0.0;
  EXPECT_TRUE(within_bound(out, r.value, bound, "twin vs float64", &worst));
  RecordProperty("worst_error_over_bound", std::to_string(worst));
}

// Row i of any M alone, inside a bigger batch, at another position, strided or misaligned: the
// same bits (the twin reads each row on its own; this holds the binding's staging to it too).
TEST_P(LinearTwinTest, RowsKeepTheirBits) {
  const TwinCase& c = GetParam();
  const Inputs in = draw({3 * c.m + 5, c.n, c.k, c.dtype, c.bias}, 3);
  const at::Tensor all = invariant_linear(in.x, in.w, in.bias);
  for (std::int64_t m : {std::int64_t{1}, c.m, c.m + 1}) {
    for (std::int64_t start : {std::int64_t{0}, c.m + 3}) {
      const at::Tensor part = invariant_linear(in.x.narrow(0, start, m), in.w, in.bias);
      EXPECT_TRUE(same_bits(part, all.narrow(0, start, m),
                            ("rows " + std::to_string(start) + "+" + std::to_string(m)).c_str()));
    }
  }
  at::Tensor wide = at::full({in.x.size(0), c.k + 3}, NAN, in.x.options());
  wide.narrow(1, 0, c.k).copy_(in.x);
  EXPECT_TRUE(same_bits(invariant_linear(wide.narrow(1, 0, c.k), in.w, in.bias), all, "strided"));
  at::Tensor storage = at::full({in.x.numel() + 1}, NAN, in.x.options());
  const at::Tensor shifted = storage.narrow(0, 1, in.x.numel()).view(in.x.sizes());
  shifted.copy_(in.x);
  EXPECT_TRUE(same_bits(invariant_linear(shifted, in.w, in.bias), all, "offset by one element"));
  // [..., K]: leading dims flattened into rows.
  const at::Tensor three = invariant_linear(in.x.view({1, in.x.size(0), c.k}), in.w, in.bias);
  EXPECT_TRUE(same_bits(three.view({in.x.size(0), c.n}), all, "3-D x"));
}

// matmul(a, b) is linear(a, b^T) bit for bit.
TEST_P(LinearTwinTest, MatmulIsLinearOfTheTranspose) {
  const TwinCase& c = GetParam();
  const Inputs in = draw(c, 4);
  const at::Tensor b = in.w.t().contiguous();  // [K, N]
  EXPECT_TRUE(same_bits(invariant_matmul(in.x, b), invariant_linear(in.x, in.w), "matmul"));
  EXPECT_TRUE(same_bits(invariant_matmul(in.x, in.w.t()), invariant_linear(in.x, in.w),
                        "matmul of a transposed view"));
}

std::vector<TwinCase> twin_cases() {
  std::vector<TwinCase> out;
  for (at::ScalarType dtype : {at::kFloat, at::kBFloat16, at::kHalf}) {
    for (const auto& [n, k] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {64, 33}, {130, 256}, {17, 1000}, {9, 2816}, {3, 1}}) {
      for (bool bias : {true, false}) out.push_back({7, n, k, dtype, bias});
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Grid, LinearTwinTest, ::testing::ValuesIn(twin_cases()),
                         [](const auto& info) { return case_name(info.param); });

// Negative controls: a wrong output must fail the checks above.
TEST(LinearTwinControls, BoundCatchesAWrongOutput) {
  for (at::ScalarType dtype : {at::kFloat, at::kBFloat16, at::kHalf}) {
    const TwinCase c{5, 40, 1000, dtype, true};
    const Inputs in = draw(c, 5);
    at::Tensor out = invariant_linear(in.x, in.w, in.bias);
    const LinearReference r = linear_reference(in.x, in.w, in.bias);
    const kernels::DType d = linear_dtype(dtype);
    const at::Tensor bound =
        linear_bounds(r, linear_bound::dot_arithmetic(d, true), d, c.k, c.bias);
    ASSERT_TRUE(within_bound(out, r.value, bound, "unperturbed"));
    // Element (2, 3) three of its bounds away from float64: outside it after the output's rounding.
    out[2][3] = r.value[2][3].item<double>() + 3 * bound[2][3].item<double>();
    EXPECT_FALSE(within_bound(out, r.value, bound, "perturbed")) << dtype;
  }
}

// A split-K variant (the two halves of K as separate fma chains, then added: what a GEMM picking
// split-K for large M does) differs from the invariant order, and same_bits says where.
TEST(LinearTwinControls, SplitKIsCaught) {
  const TwinCase c{64, 32, 1000, at::kFloat, false};
  const Inputs in = draw(c, 6);
  const at::Tensor one = invariant_linear(in.x, in.w);
  const at::Tensor split = invariant_linear(in.x.narrow(1, 0, 500), in.w.narrow(1, 0, 500)) +
                           invariant_linear(in.x.narrow(1, 500, 500), in.w.narrow(1, 500, 500));
  EXPECT_FALSE(same_bits(split, one, "split-K"));
}

TEST(LinearTwinEdges, EmptyAndZeroLength) {
  const at::Tensor w = at::randn({6, 8});
  const at::Tensor bias = at::randn({6});
  const at::Tensor empty = invariant_linear(at::empty({0, 8}), w, bias);
  EXPECT_EQ(empty.sizes(), (std::vector<std::int64_t>{0, 6}));
  EXPECT_EQ(invariant_linear(at::empty({2, 0, 8}), w).sizes(),
            (std::vector<std::int64_t>{2, 0, 6}));
  EXPECT_EQ(invariant_linear(at::randn({3, 8}), at::empty({0, 8})).sizes(),
            (std::vector<std::int64_t>{3, 0}));
  // K = 0: the accumulator stays +0, so the output is the bias (or +0).
  EXPECT_TRUE(same_bits(invariant_linear(at::empty({3, 0}), at::empty({6, 0}), bias),
                        bias.expand({3, 6}).contiguous(), "K = 0"));
  EXPECT_TRUE(same_bits(invariant_linear(at::empty({3, 0}), at::empty({6, 0})), at::zeros({3, 6}),
                        "K = 0, no bias"));
  // 1-D x: one row.
  const at::Tensor x = at::randn({8});
  EXPECT_TRUE(same_bits(invariant_linear(x, w, bias).view({1, 6}),
                        invariant_linear(x.view({1, 8}), w, bias), "1-D x"));
}

TEST(LinearTwinEdges, BadInputIsRefused) {
  const at::Tensor x = at::randn({3, 8}), w = at::randn({6, 8});
  expect_error([&] { invariant_linear(x, at::randn({6, 7})); }, "K = x.size(-1) = 8");
  expect_error([&] { invariant_linear(x, at::randn({6})); }, "w must be [N, K]");
  expect_error([&] { invariant_linear(at::scalar_tensor(1.0), w); }, "at least 1-D");
  expect_error([&] { invariant_linear(x, w, at::randn({5})); }, "bias must be [N]");
  expect_error([&] { invariant_linear(x, w.to(at::kHalf)); }, "w must have x's dtype");
  expect_error([&] { invariant_linear(x, w, at::randn({6}).to(at::kDouble)); },
               "bias must have x's dtype");
  expect_error([&] { invariant_linear(x.to(at::kDouble), w.to(at::kDouble)); },
               "takes float32, float16 or bfloat16");
  expect_error([&] { invariant_linear(x.to(at::kInt), w.to(at::kInt)); },
               "takes float32, float16 or bfloat16");
  expect_error([&] { invariant_matmul(at::randn({8}), at::randn({8, 6})); }, "at least 2 dims");
  expect_error([&] { invariant_matmul(x, at::randn({7, 6})); }, "K = a.size(-1) = 8");
  expect_error([&] { invariant_matmul(x, at::randn({2, 8, 6})); }, "b must be [K, N]");
}

}  // namespace invariant_linear_twin_test_file
}  // namespace samebits
