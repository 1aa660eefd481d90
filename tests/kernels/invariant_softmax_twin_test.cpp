// The invariant softmax's CPU twin through its binding: a row's bits do not change with the rows
// around it, its position, stride, alignment or -inf padding on the right; every element lies
// within softmax_error_bound.h's bound of float64; NaN, inf, all-equal and one-element rows.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "kernels/softmax/binding.h"
#include "kernels/softmax/softmax_error_bound.h"
#include "tests/kernels/bit_compare.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace invariant_softmax_twin_test_file {}
using namespace invariant_softmax_twin_test_file;
namespace invariant_softmax_twin_test_file {

struct TwinCase {
  std::int64_t length;
  at::ScalarType dtype;
  bool log;
  bool float_out;
};
void PrintTo(const TwinCase& c, std::ostream* os) {
  *os << (c.log ? "log_softmax" : "softmax") << "_" << c.length << "_" << c.dtype
      << (c.float_out ? "_to_float32" : "");
}

// Logits of a few units with a few -inf (masked tokens), in dtype.
at::Tensor logits(std::int64_t rows, std::int64_t length, at::ScalarType dtype,
                  std::uint64_t seed) {
  at::Generator gen = at::detail::createCPUGenerator(seed);
  at::Tensor x = at::randn({rows, length}, gen).mul(3.0);
  if (length > 4) x.view({-1}).index_put_({at::arange(3, x.numel(), 17)}, -INFINITY);
  return x.to(dtype);
}

at::Tensor run(const TwinCase& c, const at::Tensor& x) {
  return invariant_softmax(x, c.float_out ? std::optional(at::kFloat) : std::nullopt, c.log);
}

class SoftmaxTwinTest : public ::testing::TestWithParam<TwinCase> {};

TEST_P(SoftmaxTwinTest, RowBitsIgnoreBatchPositionStrideAlignmentAndRightPadding) {
  const TwinCase& c = GetParam();
  const std::int64_t rows = 5, n = c.length;
  const at::Tensor x = logits(rows, n, c.dtype, 11);
  const at::Tensor batch = run(c, x);
  for (std::int64_t r : {0, 2, 4}) {
    SCOPED_TRACE("row " + std::to_string(r));
    EXPECT_TRUE(same_bits(batch[r], run(c, x[r].clone())));  // alone, as a 1-D row
    EXPECT_TRUE(same_bits(batch[r], run(c, x.narrow(0, r, 1)).view({n})));
  }
  // A row stride of n + 3 (NaN in the gap), a storage offset of one element (unaligned rows).
  at::Tensor wide = at::full({rows, n + 3}, NAN, x.options());
  wide.narrow(1, 0, n).copy_(x);
  EXPECT_TRUE(same_bits(batch, run(c, wide.narrow(1, 0, n))));
  at::Tensor storage = at::full({rows * n + 1}, NAN, x.options());
  const at::Tensor shifted = storage.narrow(0, 1, rows * n).view({rows, n});
  shifted.copy_(x);
  EXPECT_TRUE(same_bits(batch, run(c, shifted)));
  // Transposed storage (a copy is taken) and -inf on the right (the same partials plus +0s).
  EXPECT_TRUE(same_bits(batch, run(c, x.t().contiguous().t())));
  const at::Tensor padded = at::cat({x, at::full({rows, 37}, -INFINITY, x.options())}, 1);
  EXPECT_TRUE(same_bits(batch, run(c, padded).narrow(1, 0, n).contiguous()));
  // The row in a 3-D batch with other rows around it.
  const at::Tensor big = at::cat({logits(3, n, c.dtype, 12), x, logits(4, n, c.dtype, 13)});
  EXPECT_TRUE(same_bits(batch, run(c, big.view({3, 4, n})).view({12, n}).narrow(0, 3, rows)));
}

TEST_P(SoftmaxTwinTest, WithinTheFloat64Bound) {
  const TwinCase& c = GetParam();
  const at::Tensor x = logits(3, c.length, c.dtype, 21);
  const at::Tensor got = run(c, x).to(at::kDouble);
  const at::Tensor xd = x.to(at::kDouble);
  const at::Tensor exact = c.log ? at::log_softmax(xd, -1) : at::softmax(xd, -1);
  const auto out = c.float_out || c.dtype == at::kFloat ? kernels::DType::f32
                   : c.dtype == at::kBFloat16           ? kernels::DType::bf16
                                                        : kernels::DType::f16;
  for (std::int64_t r = 0; r < x.size(0); ++r) {
    const auto xr = xd[r].contiguous();
    const auto* xs = xr.const_data_ptr<double>();
    const double m = xr.max().item<double>();
    double largest_gap = 0.0;
    for (std::int64_t i = 0; i < c.length; ++i) {
      if (m - xs[i] < 104.0) largest_gap = std::max(largest_gap, m - xs[i]);
    }
    const auto g = got[r].contiguous();
    const auto e = exact[r].contiguous();
    double worst = 0.0;
    for (std::int64_t i = 0; i < c.length; ++i) {
      const double want = e.const_data_ptr<double>()[i], have = g.const_data_ptr<double>()[i];
      if (std::isinf(xs[i]) || std::isinf(want)) {  // a -inf logit: exactly 0 or -inf
        ASSERT_EQ(have, want) << "row " << r << " element " << i;
        continue;
      }
      const double gap = m - xs[i];
      const double bound =
          c.log ? kernels::softmax_bound::log_softmax_error(want, gap, c.length, largest_gap, out)
                : kernels::softmax_bound::softmax_error(want, gap, c.length, largest_gap, out);
      ASSERT_LE(std::fabs(have - want), bound)
          << "row " << r << " element " << i << ": got " << have << ", float64 " << want;
      worst = std::max(worst, std::fabs(have - want) / bound);
    }
    if (c.length >= 7) {
      EXPECT_GT(worst, 0.0) << "no element differs from float64 at all: is the check running?";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cpu, SoftmaxTwinTest, ::testing::ValuesIn([] {
                           std::vector<TwinCase> cases;
                           for (std::int64_t n : {1, 3, 7, 1000, 4097, 32000}) {
                             for (at::ScalarType t : {at::kFloat, at::kBFloat16, at::kHalf}) {
                               for (bool log : {false, true}) {
                                 cases.push_back({n, t, log, false});
                                 if (t != at::kFloat) cases.push_back({n, t, log, true});
                               }
                             }
                           }
                           return cases;
                         }()),
                         [](const auto& info) {
                           std::ostringstream os;
                           PrintTo(info.param, &os);
                           return os.str();
                         });

TEST(SoftmaxTwinEdgeTest, SpecialRows) {
  const float inf = std::numeric_limits<float>::infinity();
  const at::Tensor x = at::tensor({1.0f, 2.0f, NAN,  0.5f,   // a NaN: the whole row NaN
                                   1.0f, inf,  0.0f, 0.0f,   // +inf: inf - inf, NaN
                                   -inf, -inf, -inf, -inf,   // all -inf: NaN (as ATen)
                                   -inf, 0.0f, -inf, 0.0f,   // -inf entries: 0 and -inf
                                   2.5f, 2.5f, 2.5f, 2.5f})  // all equal: exactly 1/4
                           .view({5, 4});
  const at::Tensor p = invariant_softmax(x, std::nullopt, false);
  const at::Tensor lp = invariant_softmax(x, std::nullopt, true);
  const at::Tensor pb = bits_of_tensor(p), lb = bits_of_tensor(lp);
  for (std::int64_t i = 0; i < 12; ++i) {
    EXPECT_EQ(pb[i].item<std::int64_t>(), 0x7fffffff) << "softmax element " << i;
    EXPECT_EQ(lb[i].item<std::int64_t>(), 0x7fffffff) << "log_softmax element " << i;
  }
  EXPECT_TRUE(same_bits(p[3], at::tensor({0.0f, 0.5f, 0.0f, 0.5f})));
  EXPECT_TRUE(same_bits(lp[3], at::tensor({-inf, -std::log(2.0f), -inf, -std::log(2.0f)})));
  EXPECT_TRUE(same_bits(p[4], at::full({4}, 0.25f)));
  // One element: softmax 1, log_softmax +0; a 16-bit NaN row is 16-bit canonical.
  EXPECT_TRUE(
      same_bits(invariant_softmax(at::tensor({-7.0f}), std::nullopt, false), at::tensor({1.0f})));
  EXPECT_TRUE(
      same_bits(invariant_softmax(at::tensor({-7.0f}), std::nullopt, true), at::tensor({0.0f})));
  const at::Tensor nan16 =
      invariant_softmax(at::tensor({1.0f, NAN}).to(at::kBFloat16), std::nullopt, true);
  EXPECT_EQ(bits_of_tensor(nan16)[0].item<std::int64_t>(), 0x7fc0);
  // Every element equal over a long row: each sum of ones is exact, so 1 / 256000 correctly
  // rounded, and -ln(256000) within kLogMaxUlp.
  const at::Tensor flat = at::full({256000}, 3.0f);
  EXPECT_TRUE(same_bits(invariant_softmax(flat, std::nullopt, false),
                        at::full({256000}, 1.0f / 256000.0f)));
  EXPECT_NEAR(invariant_softmax(flat, std::nullopt, true)[7].item<float>(), -std::log(256000.0),
              2e-6);
}

// The controls: the comparisons above can see a change. Left padding moves every element to
// another partial (i mod 4096 shifts), so the sum is another order, and its bits change (softmax
// shows it; a log often hides a one-ulp change of the sum); an input one ulp away changes its row
// and only its row.
TEST(SoftmaxTwinEdgeTest, AnotherOrderOrInputChangesBits) {
  const at::Tensor x = logits(8, 5000, at::kFloat, 31);
  const at::Tensor want = invariant_softmax(x, std::nullopt, false);
  const at::Tensor left = at::cat({at::full({8, 3}, -INFINITY), x}, 1);
  const at::Tensor shifted = invariant_softmax(left, std::nullopt, false).narrow(1, 3, 5000);
  EXPECT_FALSE(same_bits(want, shifted.contiguous())) << "left padding should reorder the sum";
  at::Tensor nudged = x.clone();
  nudged.view(at::kInt)[2][10] += 1;  // one ulp (a normal value, away from zero)
  const at::Tensor got = invariant_softmax(nudged, std::nullopt, false);
  EXPECT_FALSE(same_bits(want[2], got[2])) << "a one-ulp input change should show";
  EXPECT_TRUE(same_bits(want.narrow(0, 0, 2), got.narrow(0, 0, 2)));
  EXPECT_TRUE(same_bits(want.narrow(0, 3, 5), got.narrow(0, 3, 5)));
}

}  // namespace invariant_softmax_twin_test_file
}  // namespace samebits
