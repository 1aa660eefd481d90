// compare_tensors on whole tensors: mismatch budgets, first mismatches (unravelled index, hex bits,
// ULPs), statistics and histogram, a float64 reference vs a float32 variant, refusals, digests.
#include "harness/diff.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "tests/support/tensor_bits.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace diff_test_file {}
using namespace diff_test_file;
namespace diff_test_file {

// 8 float32 ones; the variant has its first `n` elements one ULP up (0x3f800001).
at::Tensor ones8() {
  return at::ones({8}, at::kFloat);
}
at::Tensor ones8_with_mismatches(std::int64_t n) {
  at::Tensor v = ones8();
  v.narrow(0, 0, n).fill_(1.0f + std::numeric_limits<float>::epsilon());
  return v;
}

struct Budget {
  std::string name;
  std::int64_t mismatches;  // of 8 elements
  std::optional<std::int64_t> max_mismatches;
  std::optional<double> max_mismatch_fraction;
  bool within;
};
void PrintTo(const Budget& p, std::ostream* os) {
  *os << p.name;
}

class BudgetTest : public ::testing::TestWithParam<Budget> {};

TEST_P(BudgetTest, Within) {
  const Budget& b = GetParam();
  Comparison how;
  how.max_mismatches = b.max_mismatches;
  how.max_mismatch_fraction = b.max_mismatch_fraction;
  const DiffStats d = compare_tensors(ones8(), ones8_with_mismatches(b.mismatches), how);
  EXPECT_EQ(d.mismatched, b.mismatches);
  EXPECT_DOUBLE_EQ(d.mismatch_fraction, static_cast<double>(b.mismatches) / 8.0);
  EXPECT_EQ(d.within, b.within) << b.mismatches << " mismatches of 8";
}

const Budget kBudgets[] = {
    {"NoMismatchesNoBudget", 0, std::nullopt, std::nullopt, true},
    {"OneMismatchNoBudget", 1, std::nullopt, std::nullopt, false},
    {"CountBudgetZero", 1, 0, std::nullopt, false},
    {"CountBudgetMet", 2, 2, std::nullopt, true},
    {"CountBudgetExceeded", 3, 2, std::nullopt, false},
    {"FractionBudgetMet", 2, std::nullopt, 0.25, true},
    {"FractionBudgetExceeded", 3, std::nullopt, 0.25, false},
    {"BothBudgetsMet", 2, 2, 0.25, true},
    {"CountMetFractionExceeded", 2, 5, 0.125, false},
    {"FractionMetCountExceeded", 2, 1, 0.5, false},
    {"EverythingMismatchesWithFullFraction", 8, std::nullopt, 1.0, true},
};

INSTANTIATE_TEST_SUITE_P(Diff, BudgetTest, ::testing::ValuesIn(kBudgets),
                         [](const ::testing::TestParamInfo<Budget>& info) {
                           return info.param.name;
                         });

// A [2, 3, 4] tensor of zeros against a copy with 1.0 at flat indices 23, 5 and 12.
class FirstMismatches : public ::testing::Test {
 protected:
  void SetUp() override {
    baseline = at::zeros({2, 3, 4}, at::kFloat);
    variant = baseline.clone();
    auto flat = variant.view({-1});
    for (std::int64_t i : {23, 5, 12}) flat[i] = 1.0f;
    d = compare_tensors(baseline, variant, Comparison{});
  }
  at::Tensor baseline, variant;
  DiffStats d;
};

TEST_F(FirstMismatches, IndicesAreUnravelledInOrder) {
  ASSERT_EQ(d.first_mismatches.size(), 3u);
  // 5 = 0*12 + 1*4 + 1; 12 = 1*12 + 0*4 + 0; 23 = 1*12 + 2*4 + 3.
  EXPECT_EQ(d.first_mismatches[0].index, (std::vector<std::int64_t>{0, 1, 1}));
  EXPECT_EQ(d.first_mismatches[1].index, (std::vector<std::int64_t>{1, 0, 0}));
  EXPECT_EQ(d.first_mismatches[2].index, (std::vector<std::int64_t>{1, 2, 3}));
}

TEST_F(FirstMismatches, ValuesBitsAndUlps) {
  ASSERT_FALSE(d.first_mismatches.empty());
  const Mismatch& m = d.first_mismatches[0];
  EXPECT_EQ(m.baseline, 0.0);
  EXPECT_EQ(m.variant, 1.0);
  EXPECT_EQ(m.baseline_bits, "0x00000000");
  EXPECT_EQ(m.variant_bits, "0x3f800000");
  ASSERT_TRUE(m.ulp.has_value());
  EXPECT_EQ(*m.ulp, 0x3f800000u) << "from +0 to 1 there are 0x3f800000 steps";
}

TEST_F(FirstMismatches, ShapeAndCounts) {
  EXPECT_EQ(d.shape, (std::vector<std::int64_t>{2, 3, 4}));
  EXPECT_EQ(d.numel, 24);
  EXPECT_EQ(d.mismatched, 3);
  EXPECT_EQ(d.dtype, "float32");
  EXPECT_FALSE(d.within);
}

TEST(Diff, FirstMismatchesStopAtTheLimit) {
  const at::Tensor b = at::zeros({20}, at::kFloat);
  const DiffStats d = compare_tensors(b, at::ones({20}, at::kFloat), Comparison{});
  EXPECT_EQ(d.mismatched, 20);
  ASSERT_EQ(static_cast<std::int64_t>(d.first_mismatches.size()), kFirstMismatches);
  for (std::int64_t i = 0; i < kFirstMismatches; ++i) {
    EXPECT_EQ(d.first_mismatches[static_cast<std::size_t>(i)].index,
              (std::vector<std::int64_t>{i}));
  }
}

TEST(Diff, NonContiguousInputsCompareLogically) {
  // The transpose of a [3, 2] tensor against a contiguous copy of it: the same values.
  const at::Tensor x = at::arange(6, at::kFloat).view({3, 2});
  const DiffStats d = compare_tensors(x.t().contiguous(), x.t(), Comparison{});
  EXPECT_EQ(d.mismatched, 0);
  EXPECT_EQ(d.shape, (std::vector<std::int64_t>{2, 3}));
}

TEST(Diff, StatisticsAndHistogram) {
  // Distances 0, 1, 3, 5 and 300 ULPs from 1.0 (ULP 2^-23).
  const at::Tensor b =
      from_bits(at::kFloat, {0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000});
  const at::Tensor v =
      from_bits(at::kFloat, {0x3f800000, 0x3f800001, 0x3f800003, 0x3f800005, 0x3f800000 + 300});
  const DiffStats d = compare_tensors(b, v, Comparison{});
  EXPECT_EQ(d.mismatched, 4);
  ASSERT_TRUE(d.max_ulp.has_value());
  EXPECT_EQ(*d.max_ulp, 300u);
  EXPECT_DOUBLE_EQ(d.max_abs_error, std::ldexp(300.0, -23));
  EXPECT_DOUBLE_EQ(d.max_rel_error, std::ldexp(300.0, -23));
  EXPECT_EQ(d.nonfinite_mismatches, 0);
  const std::vector<std::pair<std::string, std::int64_t>> histogram = {
      {"0", 1}, {"1", 1}, {"2-3", 1}, {"4-15", 1}, {"16-255", 0}, {"256-65535", 1}, {">=65536", 0}};
  EXPECT_EQ(d.ulp_histogram, histogram);
}

TEST(Diff, NonFiniteMismatchLeavesMaxUlpUnset) {
  // 1 vs 1 + 2 ULPs, and NaN vs 2: the NaN pair has no ULP distance.
  const at::Tensor b = from_bits(at::kFloat, {0x3f800000, 0x7fc00000});
  const at::Tensor v = from_bits(at::kFloat, {0x3f800002, 0x40000000});
  const DiffStats d = compare_tensors(b, v, Comparison{});
  EXPECT_EQ(d.mismatched, 2);
  EXPECT_EQ(d.nonfinite_mismatches, 1);
  EXPECT_FALSE(d.max_ulp.has_value());
  EXPECT_DOUBLE_EQ(d.max_abs_error, std::ldexp(2.0, -23)) << "finite pairs only";
  ASSERT_EQ(d.first_mismatches.size(), 2u);
  EXPECT_EQ(d.first_mismatches[0].ulp, std::optional<std::uint64_t>(2));
  EXPECT_FALSE(d.first_mismatches[1].ulp.has_value());
  EXPECT_TRUE(std::isnan(d.first_mismatches[1].baseline));
  EXPECT_EQ(d.first_mismatches[1].baseline_bits, "0x7fc00000");
}

// Bitwise: a NaN against the same NaN bits is no difference, so no non-finite mismatch either;
// another payload is one, and so is any NaN pair in ulp mode without equal_nan.
TEST(Diff, IdenticalNanBitsAreNoNonFiniteMismatch) {
  const at::Tensor b = from_bits(at::kFloat, {0x7fc00000, 0x7fc00000, 0x3f800000});
  const at::Tensor v = from_bits(at::kFloat, {0x7fc00000, 0x7fc00001, 0x3f800000});
  Comparison bits;
  bits.mode = CompareMode::bitwise;
  const DiffStats d = compare_tensors(b, v, bits);
  EXPECT_EQ(d.mismatched, 1);
  EXPECT_EQ(d.nonfinite_mismatches, 1) << "only the pair whose payloads differ";
  Comparison ulps;
  ulps.mode = CompareMode::ulp;
  EXPECT_EQ(compare_tensors(b, v, ulps).nonfinite_mismatches, 2);
}

TEST(Diff, RelativeErrorAgainstZeroIsInfinite) {
  const DiffStats d = compare_tensors(from_bits(at::kFloat, {0x00000000}),
                                      from_bits(at::kFloat, {0x00000001}), Comparison{});
  EXPECT_TRUE(std::isinf(d.max_rel_error));
}

TEST(Diff, IntegersHaveNoUlps) {
  Comparison how;
  how.mode = CompareMode::indices;
  const at::Tensor b = at::tensor(std::vector<std::int64_t>{3, 1, 2, 0});
  const at::Tensor v = at::tensor(std::vector<std::int64_t>{3, 2, 1, 0});
  const DiffStats d = compare_tensors(b, v, how);
  EXPECT_EQ(d.mismatched, 2);
  EXPECT_FALSE(d.max_ulp.has_value());
  EXPECT_DOUBLE_EQ(d.max_abs_error, 1.0);
  ASSERT_EQ(d.first_mismatches.size(), 2u);
  EXPECT_EQ(d.first_mismatches[0].index, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(d.first_mismatches[0].baseline_bits, "1");
  EXPECT_EQ(d.first_mismatches[0].variant_bits, "2");
  EXPECT_FALSE(d.first_mismatches[0].ulp.has_value());
}

TEST(Diff, EmptyTensorsAgree) {
  const DiffStats d =
      compare_tensors(at::zeros({0, 3}, at::kFloat), at::zeros({0, 3}, at::kFloat), Comparison{});
  EXPECT_EQ(d.numel, 0);
  EXPECT_EQ(d.mismatched, 0);
  EXPECT_TRUE(d.within);
}

// A float64 reference against a float32 variant: bitwise and ulp round the reference to float32
// first; allclose measures against the exact reference.
class Float64Reference : public ::testing::Test {
 protected:
  // 1 + 2^-30 rounds to 1.0f; 0.1 rounds to 0.1f (0x3dcccccd), which is 1.49e-9 above it.
  const at::Tensor reference = at::tensor(std::vector<double>{1.0 + std::ldexp(1.0, -30), 0.1});
  const at::Tensor variant = at::tensor(std::vector<float>{1.0f, 0.1f});
};

TEST_F(Float64Reference, BitwiseAgainstTheRoundedReference) {
  const DiffStats d = compare_tensors(reference, variant, Comparison{});
  EXPECT_EQ(d.mismatched, 0);
  EXPECT_EQ(d.dtype, "float32");
}

TEST_F(Float64Reference, UlpAgainstTheRoundedReference) {
  Comparison how;
  how.mode = CompareMode::ulp;
  EXPECT_EQ(compare_tensors(reference, variant, how).mismatched, 0);
}

TEST_F(Float64Reference, AllcloseAgainstTheExactReference) {
  Comparison how;
  how.mode = CompareMode::allclose;
  how.rtol = 0.0;
  how.atol = 1e-9;
  const DiffStats d = compare_tensors(reference, variant, how);
  EXPECT_EQ(d.mismatched, 1) << "|0.1f - 0.1| = 1.49e-9 > 1e-9; |1 - (1 + 2^-30)| = 9.3e-10";
  ASSERT_EQ(d.first_mismatches.size(), 1u);
  EXPECT_EQ(d.first_mismatches[0].index, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(d.first_mismatches[0].variant_bits, "0x3dcccccd");
  // The evidence shows the exact reference that failed the rule, not its float32 rounding (which
  // is the variant itself, and would show a "mismatch" between equal bits).
  EXPECT_EQ(d.first_mismatches[0].baseline, 0.1);
  EXPECT_EQ(d.first_mismatches[0].baseline_bits, "0x3fb999999999999a");
  EXPECT_EQ(d.first_mismatches[0].ulp, std::optional<std::uint64_t>(0))
      << "0 ULPs from the reference rounded to float32";
}

TEST_F(Float64Reference, OneUlpOffIsCaught) {
  const at::Tensor off = from_bits(at::kFloat, {0x3f800001, 0x3dcccccd});
  const DiffStats d = compare_tensors(reference, off, Comparison{});
  EXPECT_EQ(d.mismatched, 1);
  ASSERT_EQ(d.first_mismatches.size(), 1u);
  EXPECT_EQ(d.first_mismatches[0].baseline_bits, "0x3f800000") << "the rounded reference";
  EXPECT_EQ(d.first_mismatches[0].ulp, std::optional<std::uint64_t>(1));
}

TEST(Diff, AllcloseToleranceTextNamesDefaults) {
  Comparison how;
  how.mode = CompareMode::allclose;
  const DiffStats d = compare_tensors(ones8(), ones8(), how);
  EXPECT_NE(d.tolerance.find("float32 defaults"), std::string::npos) << d.tolerance;
}

TEST(Diff, RefusesDifferentShapes) {
  EXPECT_THROW(compare_tensors(at::zeros({2, 3}), at::zeros({3, 2}), Comparison{}),
               std::invalid_argument);
}

TEST(Diff, RefusesDifferentDtypes) {
  EXPECT_THROW(compare_tensors(at::zeros({2}, at::kHalf), at::zeros({2}, at::kFloat), Comparison{}),
               std::invalid_argument);
}

TEST(Diff, OnlyTheBaselineMayBeWider) {
  EXPECT_THROW(
      compare_tensors(at::zeros({2}, at::kFloat), at::zeros({2}, at::kDouble), Comparison{}),
      std::invalid_argument);
}

TEST(TensorDigest, OneFlippedBitChangesIt) {
  const at::Tensor x = at::arange(16, at::kFloat);
  at::Tensor y = x.clone();
  y.view(at::kInt)[7].bitwise_xor_(1);
  EXPECT_EQ(bits_of(y, 7), bits_of(x, 7) ^ 1u);
  EXPECT_NE(tensor_sha256(x), tensor_sha256(y));
}

TEST(TensorDigest, SameBytesOtherDtypeDiffer) {
  const at::Tensor x = at::arange(4, at::kInt);
  EXPECT_NE(tensor_sha256(x), tensor_sha256(x.view(at::kFloat)));
}

TEST(TensorDigest, SameBytesOtherShapeDiffer) {
  const at::Tensor x = at::arange(6, at::kFloat);
  EXPECT_NE(tensor_sha256(x.view({2, 3})), tensor_sha256(x.view({3, 2})));
}

TEST(TensorDigest, FollowsLogicalContentsNotStrides) {
  const at::Tensor x = at::arange(6, at::kFloat).view({3, 2});
  EXPECT_EQ(tensor_sha256(x.t()), tensor_sha256(x.t().contiguous()));
  EXPECT_EQ(tensor_sha256(x), tensor_sha256(x.clone()));
}

// The pair digests each side as tensor_sha256 does: other dtypes, strides, an empty side, and
// sides past the size hashed on two threads.
TEST(TensorDigest, APairIsEachSidesOwnDigest) {
  const at::Tensor x = at::arange(24, at::kFloat).view({2, 3, 4});
  const std::vector<std::pair<at::Tensor, at::Tensor>> pairs = {
      {x, x.to(at::kDouble)},
      {x.transpose(0, 2), x.to(at::kBFloat16)},
      {at::zeros({0}, at::kHalf), x.to(at::kLong)},
      {x.gt(3), x.to(at::kFloat8_e4m3fn)},
      {at::randn({1 << 20}, at::kFloat), at::randn({1 << 20}, at::kDouble)}};
  for (const auto& [a, b] : pairs) {
    const auto [da, db] = tensor_sha256_pair(a, b);
    EXPECT_EQ(da, tensor_sha256(a)) << a.scalar_type();
    EXPECT_EQ(db, tensor_sha256(b)) << b.scalar_type();
  }
}

TEST(TensorDigest, IsLowercaseHexSha256) {
  const std::string digest = tensor_sha256(at::zeros({3}));
  EXPECT_EQ(digest.size(), 64u);
  EXPECT_EQ(digest.find_first_not_of("0123456789abcdef"), std::string::npos) << digest;
}

}  // namespace diff_test_file
}  // namespace samebits
