// The top-k CPU twin on raw buffers of exact size, torch-free (the sanitized build runs it too):
// strided and packed rows give the first k of a stable descending sort; short rows pad with -inf.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/common/half_bits.h"
#include "kernels/topk/invariant_topk.h"
#include "tests/kernels/seeded_draws.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace invariant_topk_twin_test_file {}
using namespace invariant_topk_twin_test_file;
namespace invariant_topk_twin_test_file {

namespace k = samebits::kernels;

// Small integers (many ties) with both zeros: the index order decides among equal values.
std::vector<float> tied_values(std::int64_t n, std::uint64_t seed) {
  std::vector<float> v(static_cast<std::size_t>(n));
  std::uint64_t s = seed;
  for (auto& x : v) {
    next_draw(s);
    const int draw = static_cast<int>((s >> 33) % 41) - 20;
    x = draw == 0 && (s >> 20) % 2 ? -0.0f : static_cast<float>(draw);
  }
  return v;
}

// The oracle: positions of `row` by value descending, ties by position (a stable sort), first k.
std::vector<std::int64_t> stable_topk(const float* row, std::int64_t length, std::int64_t k) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(length));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::int64_t a, std::int64_t b) { return row[a] > row[b]; });
  order.resize(static_cast<std::size_t>(std::min(length, k)));
  return order;
}

// Row r's k slots against the oracle; slots past the row's length hold -inf and -1.
void expect_row(const float* row, std::int64_t length, std::int64_t k, const float* values,
                const std::int64_t* indices, const std::string& where) {
  const auto expected = stable_topk(row, length, k);
  for (std::int64_t j = 0; j < k; ++j) {
    if (j < static_cast<std::int64_t>(expected.size())) {
      const std::int64_t e = expected[static_cast<std::size_t>(j)];
      ASSERT_EQ(indices[j], e) << where << " slot " << j;
      ASSERT_EQ(k::float_to_bits(values[j]), k::float_to_bits(row[e])) << where << " slot " << j;
    } else {
      ASSERT_EQ(indices[j], -1) << where << " slot " << j;
      ASSERT_EQ(values[j], -std::numeric_limits<float>::infinity()) << where << " slot " << j;
    }
  }
}

struct Shape {
  std::int64_t rows, length, k;
};

class TopkTwinTest : public ::testing::TestWithParam<Shape> {};

// Rows `stride` apart in a buffer that ends with the last row: its gaps hold NaN, which ranks
// above everything, so a read outside a row shows in the result (and ASan sees one past the end).
TEST_P(TopkTwinTest, StridedRowsAreStableSortsFirstK) {
  const auto [rows, length, kk] = GetParam();
  const std::int64_t stride = length + 3;
  const auto v = tied_values(rows * length, 17);
  std::vector<float> buffer(static_cast<std::size_t>((rows - 1) * stride + length),
                            std::numeric_limits<float>::quiet_NaN());
  for (std::int64_t r = 0; r < rows; ++r)
    std::copy_n(v.begin() + r * length, length, buffer.begin() + r * stride);
  std::vector<float> values(static_cast<std::size_t>(rows * kk));
  std::vector<std::int64_t> indices(values.size());
  k::TopkProblem p;
  p.values = buffer.data();
  p.rows = rows;
  p.row_stride = stride;
  p.length = length;
  p.max_length = length;
  p.k = kk;
  p.out_values = values.data();
  p.out_indices = indices.data();
  ASSERT_EQ(k::invariant_topk_cpu(p), k::Status::ok);
  for (std::int64_t r = 0; r < rows; ++r)
    expect_row(v.data() + r * length, length, kk, values.data() + r * kk, indices.data() + r * kk,
               "row " + std::to_string(r));
}

INSTANTIATE_TEST_SUITE_P(Cpu, TopkTwinTest,
                         ::testing::Values(Shape{1, 1, 1}, Shape{3, 100, 7}, Shape{2, 64, 32},
                                           Shape{2, 64, 33}, Shape{4, 2049, 32}, Shape{2, 5, 9},
                                           Shape{1, 3000, 3000}),
                         [](const auto& info) {
                           const Shape& s = info.param;
                           return "R" + std::to_string(s.rows) + "N" + std::to_string(s.length) +
                                  "K" + std::to_string(s.k);
                         });

// Rows of 0, 1, k - 1, k and many elements packed end to end: each row as if alone.
TEST(TopkTwin, PackedRowsOfAnyLengthAreEachRowAlone) {
  const std::int64_t kk = 8;
  const std::vector<std::int64_t> lengths = {0, 1, kk - 1, kk, 500, 0, 3};
  std::vector<std::int64_t> offsets(1, 0);
  for (std::int64_t n : lengths) offsets.push_back(offsets.back() + n);
  const auto packed = tied_values(offsets.back(), 29);
  const auto rows = static_cast<std::int64_t>(lengths.size());
  std::vector<float> values(static_cast<std::size_t>(rows * kk));
  std::vector<std::int64_t> indices(values.size());
  k::TopkProblem p;
  p.values = packed.data();
  p.rows = rows;
  p.offsets = offsets.data();
  p.max_length = 500;
  p.k = kk;
  p.out_values = values.data();
  p.out_indices = indices.data();
  ASSERT_EQ(k::invariant_topk_cpu(p), k::Status::ok);
  for (std::int64_t r = 0; r < rows; ++r)
    expect_row(packed.data() + offsets[static_cast<std::size_t>(r)],
               lengths[static_cast<std::size_t>(r)], kk, values.data() + r * kk,
               indices.data() + r * kk, "packed row " + std::to_string(r));
}

// Sizes the twin cannot take are refused before anything is read or written; a row longer than
// its bound is read nowhere and marked (NaN, -1; topk_guard_test.cpp has the whole corpus).
TEST(TopkTwin, RefusesBadSizesAndMarksARowLongerThanItsBound) {
  const std::vector<float> row(4, 1.0f);
  const std::vector<std::int64_t> offsets = {0, 4};
  float value = 7.0f;
  std::int64_t index = 7;
  k::TopkProblem p;
  p.values = row.data();
  p.rows = 1;
  p.offsets = offsets.data();
  p.max_length = 4;
  p.k = 0;
  p.out_values = &value;
  p.out_indices = &index;
  EXPECT_EQ(k::invariant_topk_cpu(p), k::Status::invalid_argument);
  EXPECT_EQ(value, 7.0f);
  EXPECT_EQ(index, 7);
  p.max_length = 3;
  p.k = 1;
  EXPECT_EQ(k::invariant_topk_cpu(p), k::Status::ok);
  EXPECT_TRUE(std::isnan(value));
  EXPECT_EQ(index, -1);
}

}  // namespace invariant_topk_twin_test_file
}  // namespace samebits
