// ULP distance and hex bits on hand-built bit patterns of every floating dtype: neighbours are 1
// apart, the smallest values of opposite sign 2, +0 and -0 zero; bits print at the dtype's width.
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <string>

#include "cases/dtypes.h"
#include "harness/diff.h"
#include "tests/support/tensor_bits.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace ulp_distance_test_file {}
using namespace ulp_distance_test_file;
namespace ulp_distance_test_file {

struct UlpPair {
  std::string name;
  at::ScalarType dtype;
  std::uint64_t a;
  std::uint64_t b;
  std::int64_t ulps;  // counted from the encodings: the difference of the magnitudes, or their sum
                      // across zero
};
void PrintTo(const UlpPair& p, std::ostream* os) {
  *os << p.name;
}

std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

class UlpDistanceTest : public ::testing::TestWithParam<UlpPair> {};

TEST_P(UlpDistanceTest, CountsRepresentableValuesBetween) {
  const UlpPair& u = GetParam();
  const at::Tensor a = from_bits(u.dtype, {u.a});
  const at::Tensor b = from_bits(u.dtype, {u.b});
  ASSERT_EQ(bits_of(a, 0), u.a) << "from_bits must round-trip";
  const std::int64_t got = ulp_distance(a, b).item<std::int64_t>();
  EXPECT_EQ(got, u.ulps) << dtype_name(u.dtype) << " " << hex(u.a) << " vs " << hex(u.b);
  EXPECT_EQ(ulp_distance(b, a).item<std::int64_t>(), u.ulps) << "the distance is symmetric";
}

const UlpPair kUlpPairs[] = {
    // float32: 1 = 0x3f800000; 2 = 0x40000000, 2^23 steps above 1.
    {"Float32AdjacentAtOne", at::kFloat, 0x3f800000, 0x3f800001, 1},
    {"Float32AdjacentBelowMinusOne", at::kFloat, 0xbf800000, 0xbf800001, 1},
    {"Float32SmallestAcrossZero", at::kFloat, 0x00000001, 0x80000001, 2},
    {"Float32SignedZeros", at::kFloat, 0x00000000, 0x80000000, 0},
    {"Float32ZeroToSmallestNegative", at::kFloat, 0x00000000, 0x80000001, 1},
    {"Float32OneToTwo", at::kFloat, 0x3f800000, 0x40000000, 1 << 23},
    {"Float32LargestToInfinity", at::kFloat, 0x7f7fffff, 0x7f800000, 1},
    {"Float32OppositeLargest", at::kFloat, 0x7f7fffff, 0xff7fffff, 2 * 0x7f7fffffLL},
    // float16: 1 = 0x3c00, 2 = 0x4000 (10 mantissa bits: 1024 steps).
    {"Float16AdjacentAtOne", at::kHalf, 0x3c00, 0x3c01, 1},
    {"Float16SmallestAcrossZero", at::kHalf, 0x0001, 0x8001, 2},
    {"Float16SignedZeros", at::kHalf, 0x0000, 0x8000, 0},
    {"Float16OneToTwo", at::kHalf, 0x3c00, 0x4000, 1024},
    {"Float16OppositeLargest", at::kHalf, 0x7bff, 0xfbff, 2 * 0x7bff},
    // bfloat16: 1 = 0x3f80, 2 = 0x4000 (7 mantissa bits: 128 steps).
    {"BFloat16AdjacentAtOne", at::kBFloat16, 0x3f80, 0x3f81, 1},
    {"BFloat16SmallestAcrossZero", at::kBFloat16, 0x0001, 0x8001, 2},
    {"BFloat16SignedZeros", at::kBFloat16, 0x0000, 0x8000, 0},
    {"BFloat16OneToTwo", at::kBFloat16, 0x3f80, 0x4000, 128},
    // float8_e4m3fn: 1 = 0 0111 000 = 0x38, 2 = 0x40 (3 mantissa bits: 8 steps); 448 = 0x7e.
    {"Float8E4M3AdjacentAtOne", at::kFloat8_e4m3fn, 0x38, 0x39, 1},
    {"Float8E4M3SmallestAcrossZero", at::kFloat8_e4m3fn, 0x01, 0x81, 2},
    {"Float8E4M3SignedZeros", at::kFloat8_e4m3fn, 0x00, 0x80, 0},
    {"Float8E4M3OneToTwo", at::kFloat8_e4m3fn, 0x38, 0x40, 8},
    {"Float8E4M3OppositeLargest", at::kFloat8_e4m3fn, 0x7e, 0xfe, 2 * 0x7e},
    // float8_e5m2: 1 = 0 01111 00 = 0x3c, 2 = 0x40 (2 mantissa bits: 4 steps).
    {"Float8E5M2AdjacentAtOne", at::kFloat8_e5m2, 0x3c, 0x3d, 1},
    {"Float8E5M2SmallestAcrossZero", at::kFloat8_e5m2, 0x01, 0x81, 2},
    {"Float8E5M2SignedZeros", at::kFloat8_e5m2, 0x00, 0x80, 0},
    {"Float8E5M2OneToTwo", at::kFloat8_e5m2, 0x3c, 0x40, 4},
    // float64: 1 = 0x3ff0..., 2 = 0x4000... (52 mantissa bits).
    {"Float64AdjacentAtOne", at::kDouble, 0x3ff0000000000000, 0x3ff0000000000001, 1},
    {"Float64SmallestAcrossZero", at::kDouble, 0x0000000000000001, 0x8000000000000001, 2},
    {"Float64SignedZeros", at::kDouble, 0x0000000000000000, 0x8000000000000000, 0},
    {"Float64OneToTwo", at::kDouble, 0x3ff0000000000000, 0x4000000000000000, 1LL << 52},
    // 2 and -2 are 2 * 0x4000000000000000 = 2^63 apart, one past the largest int64: the distance
    // saturates rather than wrapping to a negative number that every max_ulp would accept.
    {"Float64TwoAndMinusTwoSaturate", at::kDouble, 0x4000000000000000, 0xc000000000000000,
     std::numeric_limits<std::int64_t>::max()},
    {"Float64OppositeLargestSaturate", at::kDouble, 0x7fefffffffffffff, 0xffefffffffffffff,
     std::numeric_limits<std::int64_t>::max()},
};

INSTANTIATE_TEST_SUITE_P(Diff, UlpDistanceTest, ::testing::ValuesIn(kUlpPairs),
                         [](const ::testing::TestParamInfo<UlpPair>& info) {
                           return info.param.name;
                         });

TEST(UlpDistance, RefusesMixedDtypes) {
  EXPECT_THROW(ulp_distance(from_bits(at::kFloat, {0}), from_bits(at::kDouble, {0})),
               std::invalid_argument);
}

TEST(UlpDistance, RefusesIntegers) {
  EXPECT_THROW(ulp_distance(at::zeros({1}, at::kLong), at::zeros({1}, at::kLong)),
               std::invalid_argument);
}

struct Bits {
  std::string name;
  at::ScalarType dtype;
  std::uint64_t bits;
  std::string text;
};
void PrintTo(const Bits& p, std::ostream* os) {
  *os << p.name;
}

class ElementBitsTest : public ::testing::TestWithParam<Bits> {};

TEST_P(ElementBitsTest, HexAtTheDtypeWidth) {
  const Bits& b = GetParam();
  const at::Tensor t = from_bits(b.dtype, {0, b.bits});
  EXPECT_EQ(element_bits(t, 1), b.text);
}

const Bits kBits[] = {
    {"Float32One", at::kFloat, 0x3f800000, "0x3f800000"},
    {"Float32MinusZero", at::kFloat, 0x80000000, "0x80000000"},
    {"Float32SmallestKeepsLeadingZeros", at::kFloat, 0x00000001, "0x00000001"},
    {"Float16One", at::kHalf, 0x3c00, "0x3c00"},
    {"Float16MinusZero", at::kHalf, 0x8000, "0x8000"},
    {"BFloat16MinusTwo", at::kBFloat16, 0xc000, "0xc000"},
    {"Float8E4M3One", at::kFloat8_e4m3fn, 0x38, "0x38"},
    {"Float8E4M3NegativeSmallest", at::kFloat8_e4m3fn, 0x81, "0x81"},
    {"Float8E5M2One", at::kFloat8_e5m2, 0x3c, "0x3c"},
    {"Float64One", at::kDouble, 0x3ff0000000000000, "0x3ff0000000000000"},
    {"Float64MinusZero", at::kDouble, 0x8000000000000000, "0x8000000000000000"},
    {"Int64PrintsInDecimal", at::kLong, static_cast<std::uint64_t>(-5), "-5"},
    {"Int32PrintsInDecimal", at::kInt, 0xffffffff, "-1"},
};

INSTANTIATE_TEST_SUITE_P(Diff, ElementBitsTest, ::testing::ValuesIn(kBits),
                         [](const ::testing::TestParamInfo<Bits>& info) {
                           return info.param.name;
                         });

}  // namespace ulp_distance_test_file
}  // namespace samebits
