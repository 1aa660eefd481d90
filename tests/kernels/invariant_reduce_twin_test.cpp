// The invariant reduction's CPU twin on raw buffers, torch-free (the sanitized build runs it too):
// its order is the documented one, sums of exact inputs are exact, and no layout moves a bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/common/half_bits.h"
#include "kernels/reduce/invariant_reduce.h"
#include "tests/kernels/seeded_draws.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace invariant_reduce_twin_test_file {}
using namespace invariant_reduce_twin_test_file;
namespace invariant_reduce_twin_test_file {

using kernels::bits_to_float;
using kernels::float_to_bits;

float twin_sum(const std::vector<float>& v, std::int64_t stride = 1) {
  kernels::ReduceProblem p;
  p.x = v.data();
  p.length = static_cast<std::int64_t>(v.size()) / stride;
  p.stride_length = stride;
  float out = -1.0f;
  p.out = &out;
  EXPECT_EQ(kernels::invariant_reduce_cpu(p), kernels::Status::ok);
  return out;
}

float sequential_sum(const std::vector<float>& v) {
  float acc = 0.0f;
  for (float x : v) acc = acc + x;
  return acc;
}

std::string bits(float f) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", float_to_bits(f));
  return buf;
}

// Each case puts a few values at chosen positions (the rest 0) where the documented order and a
// plain left-to-right sum disagree; both expected results are worked out by hand.
struct OrderCase {
  std::string name;
  std::int64_t n;
  std::vector<std::pair<std::int64_t, float>> values;
  float canonical;   // by invariant_reduce_order.h
  float sequential;  // by a left-to-right loop
};
void PrintTo(const OrderCase& c, std::ostream* os) {
  *os << c.name;
}

class DocumentedOrderTest : public ::testing::TestWithParam<OrderCase> {};

TEST_P(DocumentedOrderTest, TwinAddsInTheDocumentedOrder) {
  const OrderCase& c = GetParam();
  std::vector<float> v(static_cast<std::size_t>(c.n), 0.0f);
  for (const auto& [index, value] : c.values) v[static_cast<std::size_t>(index)] = value;
  ASSERT_EQ(sequential_sum(v), c.sequential) << "the case must tell the orders apart";
  const float got = twin_sum(v);
  EXPECT_EQ(float_to_bits(got), float_to_bits(c.canonical))
      << "got " << got << " (" << bits(got) << "), want " << c.canonical << " ("
      << bits(c.canonical) << ")";
}

// 1e8 + 3 rounds to 1e8 in float32 (its ulp there is 8), so where 3 meets 1e8 decides the result.
INSTANTIATE_TEST_SUITE_P(
    Cpu, DocumentedOrderTest,
    ::testing::Values(
        // Lane 0 holds elements 0..3, lane 1 elements 4..7: 1e8 and -1e8 meet only in the tree.
        OrderCase{"LanesOfFour",
                  8,
                  {{0, 1e8f}, {1, 1}, {2, 1}, {3, 1}, {4, -1e8f}, {5, 1}, {6, 1}, {7, 1}},
                  0.0f,
                  3.0f},
        // Element 1024 is lane 0's fifth (step k = 1), so it meets element 0 before lane 1's 3
        // does.
        OrderCase{"StepOfTheSameLane", 1028, {{0, 1e8f}, {4, 3}, {1024, -1e8f}}, 3.0f, 0.0f},
        // The tree pairs lane t with t + 128 first: element 512 is lane 128.
        OrderCase{"TreePairsHalves", 516, {{0, 1e8f}, {4, 3}, {512, -1e8f}}, 3.0f, 0.0f},
        // Two chunks: each is summed alone (1e8 + 3 = 1e8 inside chunk 0), then the chunk sums.
        // (Were element 4096 a fifth step of lane 0 instead, it would cancel 1e8 first: 3.)
        OrderCase{"ChunksFirst", 4100, {{0, 1e8f}, {4, 3}, {4096, -1e8f}}, 0.0f, 0.0f},
        // Chunk sums are themselves summed by lanes of four: chunks 4 and 5 (elements 16384 and
        // 20480) are lane 1's, so 3 meets -1e8 (and is lost) before 1e8 and -1e8 cancel.
        OrderCase{"ChunkSumsInLanes", 20484, {{0, 1e8f}, {16384, -1e8f}, {20480, 3}}, 0.0f, 3.0f}),
    [](const auto& info) { return info.param.name; });

// Multiples of 1/16 in [-1, 1]: every partial sum of up to 2^19 of them is exact in float32, so any
// order gives the exact sum, which float64 computes.
std::vector<float> exact_values(std::int64_t n, std::uint64_t seed) {
  std::vector<float> v(static_cast<std::size_t>(n));
  std::uint64_t s = seed;
  for (auto& x : v) {
    next_draw(s);
    x = static_cast<float>(static_cast<int>((s >> 33) % 33) - 16) / 16.0f;
  }
  return v;
}

// Values over 40 binades with random signs: the order of the adds decides the rounding.
std::vector<float> wide_values(std::int64_t n, std::uint64_t seed) {
  std::vector<float> v(static_cast<std::size_t>(n));
  std::uint64_t s = seed;
  for (auto& x : v) {
    next_draw(s);
    const double e = static_cast<double>((s >> 20) % 40000) / 1000.0 - 20.0;
    x = static_cast<float>(std::ldexp((s >> 63) ? -1.0 : 1.0, 0) * std::exp2(e));
  }
  return v;
}

class LengthTest : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(LengthTest, ExactInputsSumExactly) {
  const auto v = exact_values(GetParam(), 7);
  double exact = 0;
  for (float x : v) exact += x;
  ASSERT_EQ(static_cast<double>(static_cast<float>(exact)), exact);
  EXPECT_EQ(float_to_bits(twin_sum(v)), float_to_bits(static_cast<float>(exact)));
}

TEST_P(LengthTest, StridesZerosAndColumnsKeepTheBits) {
  const std::int64_t n = GetParam();
  const auto v = wide_values(n, 11);
  const float contiguous = twin_sum(v);
  // Every third element of a buffer whose gaps hold NaN: a strided view.
  std::vector<float> strided(static_cast<std::size_t>(3 * n),
                             std::numeric_limits<float>::quiet_NaN());
  for (std::int64_t i = 0; i < n; ++i)
    strided[static_cast<std::size_t>(3 * i)] = v[static_cast<std::size_t>(i)];
  EXPECT_EQ(float_to_bits(twin_sum(strided, 3)), float_to_bits(contiguous)) << "strided";
  // Zero padding past the end (pad-to-a-multiple): adding +0.0 to a lane changes nothing.
  std::vector<float> padded = v;
  padded.resize(static_cast<std::size_t>(n + 1000), 0.0f);
  EXPECT_EQ(float_to_bits(twin_sum(padded)), float_to_bits(contiguous)) << "zero padded";
  // Column 1 of an [n, 2] matrix (the reduction walks rows, columns sit side by side).
  std::vector<float> matrix(static_cast<std::size_t>(2 * n), 5.0f);
  for (std::int64_t i = 0; i < n; ++i)
    matrix[static_cast<std::size_t>(2 * i + 1)] = v[static_cast<std::size_t>(i)];
  kernels::ReduceProblem p;
  p.x = matrix.data();
  p.length = n;
  p.stride_length = 2;
  p.inner = 2;
  p.stride_inner = 1;
  float out[2] = {0, 0};
  p.out = out;
  p.out_stride_inner = 1;
  ASSERT_EQ(kernels::invariant_reduce_cpu(p), kernels::Status::ok);
  EXPECT_EQ(float_to_bits(out[1]), float_to_bits(contiguous)) << "column";
}

TEST_P(LengthTest, VarlenRowsMatchRowsAlone) {
  const std::int64_t n = GetParam();
  const auto a = wide_values(n, 3), b = wide_values(n / 2 + 1, 5);
  std::vector<float> packed = b;
  packed.insert(packed.end(), a.begin(), a.end());
  const std::int64_t offsets[3] = {0, static_cast<std::int64_t>(b.size()),
                                   static_cast<std::int64_t>(packed.size())};
  float out[2];
  kernels::VarlenReduceProblem p;
  p.values = packed.data();
  p.offsets = offsets;
  p.rows = 2;
  p.max_length = n;
  p.out = out;
  ASSERT_EQ(kernels::invariant_reduce_varlen_cpu(p), kernels::Status::ok);
  EXPECT_EQ(float_to_bits(out[1]), float_to_bits(twin_sum(a)));
  EXPECT_EQ(float_to_bits(out[0]), float_to_bits(twin_sum(b)));
}

INSTANTIATE_TEST_SUITE_P(Cpu, LengthTest,
                         ::testing::Values(1, 5, 128, 129, 1000, 4096, 4097, 3 * 4096 + 5, 70000),
                         [](const auto& info) { return "N" + std::to_string(info.param); });

TEST(InvariantReduceTwin, MeanDividesTheSumOnce) {
  const auto v = wide_values(1001, 13);
  kernels::ReduceProblem p;
  p.x = v.data();
  p.length = 1001;
  float out = 0;
  p.out = &out;
  p.mean = true;
  ASSERT_EQ(kernels::invariant_reduce_cpu(p), kernels::Status::ok);
  EXPECT_EQ(float_to_bits(out), float_to_bits(twin_sum(v) / 1001.0f));
}

TEST(InvariantReduceTwin, NanIsTheCudaCanonicalNanAndEmptyIsZero) {
  std::vector<float> v = {1.0f, bits_to_float(0x7fc01234u), 2.0f};
  EXPECT_EQ(float_to_bits(twin_sum(v)), 0x7fffffffu);
  std::vector<float> empty(1, 9.0f);
  kernels::ReduceProblem p;
  p.x = empty.data();
  p.length = 0;
  float out = 5;
  p.out = &out;
  ASSERT_EQ(kernels::invariant_reduce_cpu(p), kernels::Status::ok);
  EXPECT_EQ(float_to_bits(out), 0u) << "an empty sum is +0.0";
  p.mean = true;
  ASSERT_EQ(kernels::invariant_reduce_cpu(p), kernels::Status::ok);
  EXPECT_EQ(float_to_bits(out), 0x7fffffffu) << "an empty mean is 0 / 0";
  // A sum is never -0.0: lanes start at +0.0 and +0.0 + -0.0 = +0.0.
  EXPECT_EQ(float_to_bits(twin_sum({-0.0f, -0.0f})), 0u);
}

}  // namespace invariant_reduce_twin_test_file
}  // namespace samebits
