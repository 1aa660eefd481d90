// compare_tensors on one element pair per test: each mode, signed zeros, NaN payloads, equal_nan,
// infinities, and torch.testing's |variant - baseline| <= atol + rtol * |baseline| with defaults.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "cases/dtypes.h"
#include "harness/diff.h"
#include "tests/support/tensor_bits.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace compare_modes_test_file {}
using namespace compare_modes_test_file;
namespace compare_modes_test_file {

Comparison bitwise() {
  return {};
}
Comparison indices() {
  Comparison c;
  c.mode = CompareMode::indices;
  return c;
}
Comparison ulp(std::int64_t max_ulp, bool equal_nan = false) {
  Comparison c;
  c.mode = CompareMode::ulp;
  c.max_ulp = max_ulp;
  c.equal_nan = equal_nan;
  return c;
}
Comparison allclose(std::optional<double> rtol, std::optional<double> atol,
                    bool equal_nan = false) {
  Comparison c;
  c.mode = CompareMode::allclose;
  c.rtol = rtol;
  c.atol = atol;
  c.equal_nan = equal_nan;
  return c;
}
const std::optional<double> kDefault;  // the dtype's torch.testing default

struct Pair {
  std::string name;
  at::ScalarType dtype;
  std::uint64_t baseline;  // bit patterns
  std::uint64_t variant;
  Comparison how;
  bool mismatch;
};
void PrintTo(const Pair& p, std::ostream* os) {
  *os << p.name;
}

class ComparePairTest : public ::testing::TestWithParam<Pair> {};

TEST_P(ComparePairTest, MismatchOrNot) {
  const Pair& p = GetParam();
  const at::Tensor b = from_bits(p.dtype, {p.baseline});
  const at::Tensor v = from_bits(p.dtype, {p.variant});
  const DiffStats d = compare_tensors(b, v, p.how);
  const std::string ulps = at::isFloatingType(p.dtype)
                               ? std::to_string(ulp_distance(b, v).item<std::int64_t>())
                               : std::string("n/a");
  EXPECT_EQ(d.mismatched, p.mismatch ? 1 : 0)
      << to_string(p.how.mode) << " " << dtype_name(p.dtype) << " at [0]: baseline "
      << element_bits(b, 0) << " (" << b.to(at::kDouble).item<double>() << ") vs variant "
      << element_bits(v, 0) << " (" << v.to(at::kDouble).item<double>() << "), " << ulps
      << " ULPs apart";
  EXPECT_EQ(d.within, !p.mismatch);
  EXPECT_EQ(d.first_mismatches.size(), p.mismatch ? 1u : 0u);
  EXPECT_EQ(d.mode, p.how.mode);
  EXPECT_EQ(d.numel, 1);
}

// float32 encodings used below: 1 = 0x3f800000, 2 = 0x40000000, 0.25 = 0x3e800000,
// 0.375 = 0x3ec00000, 1000 = 0x447a0000 (its ULP is 2^-14), quiet NaN = 0x7fc00000,
// +inf = 0x7f800000, largest finite = 0x7f7fffff.
const Pair kPairs[] = {
    {"BitwiseEqual", at::kFloat, 0x3f800000, 0x3f800000, bitwise(), false},
    {"BitwiseOneUlpApart", at::kFloat, 0x3f800000, 0x3f800001, bitwise(), true},
    {"BitwiseSignedZerosDiffer", at::kFloat, 0x00000000, 0x80000000, bitwise(), true},
    {"BitwiseSameNaNPayload", at::kFloat, 0x7fc00000, 0x7fc00000, bitwise(), false},
    {"BitwiseNaNPayloadsDiffer", at::kFloat, 0x7fc00000, 0x7fc00001, bitwise(), true},
    {"BitwiseNaNSignsDiffer", at::kFloat, 0x7fc00000, 0xffc00000, bitwise(), true},
    {"BitwiseSameInfinity", at::kFloat, 0x7f800000, 0x7f800000, bitwise(), false},
    {"BitwiseFloat16LastBit", at::kHalf, 0x3c00, 0x3c01, bitwise(), true},
    {"BitwiseFloat8E5M2SignedZeros", at::kFloat8_e5m2, 0x00, 0x80, bitwise(), true},
    {"UlpSignedZerosAgree", at::kFloat, 0x00000000, 0x80000000, ulp(0), false},
    {"UlpZeroBudgetOneApart", at::kFloat, 0x3f800000, 0x3f800001, ulp(0), true},
    {"UlpOneApartWithinOne", at::kFloat, 0x3f800000, 0x3f800001, ulp(1), false},
    {"UlpTwoApartBeyondOne", at::kFloat, 0x3f800000, 0x3f800002, ulp(1), true},
    {"UlpAcrossZeroIsTwo", at::kFloat, 0x00000001, 0x80000001, ulp(1), true},
    {"UlpAcrossZeroWithinTwo", at::kFloat, 0x00000001, 0x80000001, ulp(2), false},
    {"UlpFloat8E4M3TwoApart", at::kFloat8_e4m3fn, 0x38, 0x3a, ulp(1), true},
    {"UlpBFloat16OneApart", at::kBFloat16, 0x3f80, 0x3f81, ulp(1), false},
    {"UlpNaNWithoutEqualNan", at::kFloat, 0x7fc00000, 0x7fc00000, ulp(0), true},
    {"UlpNaNWithEqualNan", at::kFloat, 0x7fc00000, 0xffc00001, ulp(0, true), false},
    {"UlpNaNVersusNumber", at::kFloat, 0x7fc00000, 0x3f800000, ulp(1000, true), true},
    {"UlpNumberVersusNaN", at::kFloat, 0x3f800000, 0x7fc00000, ulp(1000, true), true},
    {"UlpSameInfinity", at::kFloat, 0x7f800000, 0x7f800000, ulp(0), false},
    {"UlpOppositeInfinities", at::kFloat, 0x7f800000, 0xff800000, ulp(1000), true},
    {"UlpInfinityVersusLargestFinite", at::kFloat, 0x7f800000, 0x7f7fffff, ulp(1000), true},
    {"AllcloseNaNWithoutEqualNan", at::kFloat, 0x7fc00000, 0x7fc00000, allclose(1, 1), true},
    {"AllcloseNaNWithEqualNan", at::kFloat, 0x7fc00000, 0x7fc00000, allclose(0, 0, true), false},
    {"AllcloseNaNVersusNumber", at::kFloat, 0x7fc00000, 0x3f800000, allclose(1, 1, true), true},
    {"AllcloseSameInfinity", at::kFloat, 0x7f800000, 0x7f800000, allclose(0, 0), false},
    {"AllcloseInfinityVersusLargestFinite", at::kFloat, 0x7f800000, 0x7f7fffff, allclose(1e6, 1e6),
     true},
    // |1 - 2| = 1 <= 0 + 0.5 * |2|: close when 2 is the baseline ...
    {"AllcloseRelativeToTheBaseline", at::kFloat, 0x40000000, 0x3f800000, allclose(0.5, 0), false},
    // ... but 1 > 0 + 0.5 * |1| when 1 is: the rule is not symmetric.
    {"AllcloseIsAsymmetric", at::kFloat, 0x3f800000, 0x40000000, allclose(0.5, 0), true},
    {"AllcloseAtolBoundaryIsInclusive", at::kFloat, 0x00000000, 0x3e800000, allclose(0, 0.25),
     false},
    {"AllcloseBeyondAtol", at::kFloat, 0x00000000, 0x3ec00000, allclose(0, 0.25), true},
    {"AllcloseZeroTolerancesAreExact", at::kFloat, 0x3f800000, 0x3f800001, allclose(0, 0), true},
    {"AllcloseSignedZerosAgree", at::kFloat, 0x00000000, 0x80000000, allclose(0, 0), false},
    // float32 defaults rtol 1.3e-6, atol 1e-5: at 1000 the bound is 1e-5 + 1.3e-3 = 1.31e-3;
    // 20 ULPs (20 * 2^-14 = 1.2207e-3) are inside, 22 ULPs (1.3428e-3) outside.
    {"AllcloseFloat32DefaultsInside", at::kFloat, 0x447a0000, 0x447a0000 + 20,
     allclose(kDefault, kDefault), false},
    {"AllcloseFloat32DefaultsOutside", at::kFloat, 0x447a0000, 0x447a0000 + 22,
     allclose(kDefault, kDefault), true},
    // float16 defaults rtol 1e-3, atol 1e-5: at 1 the bound is 1.01e-3; one ULP is 2^-10 =
    // 9.77e-4, two are 1.95e-3.
    {"AllcloseFloat16DefaultsOneUlp", at::kHalf, 0x3c00, 0x3c01, allclose(kDefault, kDefault),
     false},
    {"AllcloseFloat16DefaultsTwoUlps", at::kHalf, 0x3c00, 0x3c02, allclose(kDefault, kDefault),
     true},
    // bfloat16 defaults rtol 1.6e-2, atol 1e-5: at 1 the bound is 1.601e-2; two ULPs are
    // 2 * 2^-7 = 1.5625e-2, three 2.34e-2.
    {"AllcloseBFloat16DefaultsTwoUlps", at::kBFloat16, 0x3f80, 0x3f82, allclose(kDefault, kDefault),
     false},
    {"AllcloseBFloat16DefaultsThreeUlps", at::kBFloat16, 0x3f80, 0x3f83,
     allclose(kDefault, kDefault), true},
    {"IndicesEqual", at::kLong, 7, 7, indices(), false},
    {"IndicesDiffer", at::kLong, 7, 8, indices(), true},
    {"BitwiseOnIntegers", at::kInt, 0xffffffff, 0xfffffffe, bitwise(), true},
};

INSTANTIATE_TEST_SUITE_P(Diff, ComparePairTest, ::testing::ValuesIn(kPairs),
                         [](const ::testing::TestParamInfo<Pair>& info) {
                           return info.param.name;
                         });

struct Tolerance {
  std::string name;
  at::ScalarType dtype;
  double rtol;
  double atol;
};
void PrintTo(const Tolerance& p, std::ostream* os) {
  *os << p.name;
}

class DefaultTolerancesTest : public ::testing::TestWithParam<Tolerance> {};

// torch.testing.assert_close's documented table (torch/testing/_comparison.py).
TEST_P(DefaultTolerancesTest, MatchTorchTesting) {
  const Tolerance& t = GetParam();
  const auto got = default_tolerances(t.dtype);
  EXPECT_EQ(got.first, t.rtol) << dtype_name(t.dtype) << " rtol";
  EXPECT_EQ(got.second, t.atol) << dtype_name(t.dtype) << " atol";
}

const Tolerance kTolerances[] = {
    {"Float16", at::kHalf, 1e-3, 1e-5},    {"BFloat16", at::kBFloat16, 1.6e-2, 1e-5},
    {"Float32", at::kFloat, 1.3e-6, 1e-5}, {"Float64", at::kDouble, 1e-7, 1e-7},
    {"Int64IsExact", at::kLong, 0.0, 0.0}, {"Int32IsExact", at::kInt, 0.0, 0.0},
};

INSTANTIATE_TEST_SUITE_P(Diff, DefaultTolerancesTest, ::testing::ValuesIn(kTolerances),
                         [](const ::testing::TestParamInfo<Tolerance>& info) {
                           return info.param.name;
                         });

}  // namespace compare_modes_test_file
}  // namespace samebits
