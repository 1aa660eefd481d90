// The top-k kernels on CUDA (label "gpu"; skipped without a GPU): radix_select and warp_select
// give the stable sort's selection and the twin's bits, alone or among other rows, any layout.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/device_choice.h"
#include "kernels/topk/binding.h"
#include "kernels/topk/invariant_topk.h"
#include "tests/kernels/expect_error.h"
#include "tests/kernels/topk_inputs.h"
#include "tests/kernels/topk_oracle.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace invariant_topk_gpu_test_file {}
using namespace invariant_topk_gpu_test_file;
namespace invariant_topk_gpu_test_file {

#define SAMEBITS_REQUIRE_CUDA() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU visible"

struct GpuTopkCase {
  std::string kind;
  at::ScalarType dtype;
  std::int64_t rows, n, k;
  std::string algorithm;
};

std::string case_name(const ::testing::TestParamInfo<GpuTopkCase>& info) {
  const GpuTopkCase& c = info.param;
  return c.algorithm + "_" + c.kind + "_" + std::string(c10::toString(c.dtype)) + "_R" +
         std::to_string(c.rows) + "_N" + std::to_string(c.n) + "_K" + std::to_string(c.k);
}

class CudaTopkTest : public ::testing::TestWithParam<GpuTopkCase> {};

TEST_P(CudaTopkTest, MatchesStableSortAndTwin) {
  SAMEBITS_REQUIRE_CUDA();
  const GpuTopkCase& c = GetParam();
  const at::Tensor x = topk_input(c.kind, c.rows, c.n, 5).to(c.dtype);
  auto [twin_values, twin_indices] = invariant_topk(x, c.k);
  // The CPU stable sort is the oracle: ATen's CUDA sort orders a negative NaN below -inf
  // (measured on the H100), while the contract (and the CPU sort, and at::topk) puts every NaN
  // above +inf.
  auto [expected_values, expected_indices] = stable_sort_topk(x, c.k);
  auto [values, indices] = invariant_topk(x.cuda(), c.k, c.algorithm);
  EXPECT_TRUE(same_selection(expected_values, expected_indices, values, indices))
      << "vs ATen's stable sort on the CPU";
  EXPECT_TRUE(same_selection(twin_values, twin_indices, values, indices)) << "vs the CPU twin";
}

std::vector<GpuTopkCase> cuda_cases() {
  std::vector<GpuTopkCase> out;
  for (const char* kind : kTopkInputKinds) {
    for (at::ScalarType dtype : {at::kFloat, at::kHalf, at::kBFloat16}) {
      for (auto [n, k] : {std::pair<std::int64_t, std::int64_t>{1, 1},
                          {33, 16},
                          {64, 32},
                          {1000, 32},
                          {2048, 16},
                          {2048, 32}}) {
        out.push_back({kind, dtype, 67, n, k, "warp_select"});
        out.push_back({kind, dtype, 67, n, k, "radix_select"});
      }
      for (auto [n, k] : {std::pair<std::int64_t, std::int64_t>{4096, 2048},
                          {8191, 2048},
                          {3000, 2000},   // relu: about 500 zeros at the threshold
                          {12000, 1500},  // cached, two gather tiles
                          {20000, 100},
                          {5000, 5000},
                          {70000, 9000}}) {
        out.push_back({kind, dtype, 5, n, k, "radix_select"});
      }
      // split_select: one segment, a segment and one, several with a short last one, and the
      // longest rows of issue 14's grid.
      for (auto [n, k] : {std::pair<std::int64_t, std::int64_t>{4096, 2048},
                          {4097, 4096},
                          {16385, 64},
                          {40000, 2048},
                          {131072, 4096}}) {
        out.push_back({kind, dtype, 3, n, k, "split_select"});
      }
    }
  }
  return out;
}
INSTANTIATE_TEST_SUITE_P(Kinds, CudaTopkTest, ::testing::ValuesIn(cuda_cases()), case_name);

// One row alone vs the same row among 30 others of other lengths (packed, one launch), and at
// the end of a strided batch: the same bits, for both kernels.
class CudaTopkBatchTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaTopkBatchTest, RowAloneEqualsRowInBatch) {
  SAMEBITS_REQUIRE_CUDA();
  const std::string algorithm = GetParam();
  const bool small = algorithm == "warp_select";
  const std::int64_t k = small ? 32 : 2048;
  const std::int64_t longest = small ? 2048 : 8192;
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(17);
  const at::Tensor lengths =
      at::randint(small ? 33 : 4096, longest + 1, {31}, gen, at::TensorOptions().dtype(at::kLong));
  const at::Tensor offsets = at::cat({at::zeros({1}, at::kLong), lengths.cumsum(0)});
  const at::Tensor values = topk_input("ties", 1, offsets[-1].item<std::int64_t>(), 19).view(-1);
  auto [batch_values, batch_indices] =
      invariant_topk_varlen(values.cuda(), offsets.cuda(), k, longest, algorithm);
  for (std::int64_t r = 0; r < 31; r += 5) {
    const at::Tensor row =
        values.narrow(0, offsets[r].item<std::int64_t>(), lengths[r].item<std::int64_t>());
    auto [alone_values, alone_indices] = invariant_topk(row.cuda(), k, algorithm);
    EXPECT_TRUE(same_selection(alone_values, alone_indices, batch_values[r], batch_indices[r]))
        << "row " << r << " of length " << lengths[r].item<std::int64_t>();
  }
}
INSTANTIATE_TEST_SUITE_P(Algorithms, CudaTopkBatchTest,
                         ::testing::Values("warp_select", "radix_select", "split_select"));

// split_select over packed rows of lengths around its segment and k (empty, shorter than k, one
// element past a segment): the twin's selection, and each row alone gives its row in the batch.
// Control: radix_select on the same rows, the same words.
TEST(CudaTopkSplit, PackedRowsOfAnyLengthAloneOrInBatch) {
  SAMEBITS_REQUIRE_CUDA();
  const std::int64_t k = 2048;
  const std::vector<std::int64_t> lengths = {0,    1,    100,  2047,  2048,  2049,  4095,
                                             4096, 4097, 8192, 16384, 16385, 40000, 70001};
  std::vector<std::int64_t> starts = {0};
  for (std::int64_t n : lengths) starts.push_back(starts.back() + n);
  const at::Tensor offsets = at::tensor(starts, at::kLong);
  const std::int64_t longest = 70001;
  for (const char* kind : {"ties", "specials", "constant"}) {
    const at::Tensor values = topk_input(kind, 1, starts.back(), 29).view(-1);
    auto [twin_values, twin_indices] = invariant_topk_varlen(values, offsets, k, longest);
    auto [split_values, split_indices] =
        invariant_topk_varlen(values.cuda(), offsets.cuda(), k, longest, "split_select");
    auto [radix_values, radix_indices] =
        invariant_topk_varlen(values.cuda(), offsets.cuda(), k, longest, "radix_select");
    EXPECT_TRUE(same_selection(twin_values, twin_indices, split_values, split_indices)) << kind;
    EXPECT_TRUE(same_selection(radix_values, radix_indices, split_values, split_indices)) << kind;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      const at::Tensor alone = at::tensor({std::int64_t{0}, lengths[r]}, at::kLong);
      auto [v, i] = invariant_topk_varlen(values.narrow(0, starts[r], lengths[r]).cuda(),
                                          alone.cuda(), k, longest, "split_select");
      EXPECT_TRUE(same_selection(split_values[r], split_indices[r], v[0], i[0]))
          << kind << ": row " << r << " of length " << lengths[r];
    }
  }
}

// split_select stops its digit passes once the k-th key's bits found so far are shared only by
// keys the result takes. Rows of 1.0 (0x3f800000) with a top set above them reach each way out:
//   row 0: 2048 copies of 2.0, exactly k in the first 12-bit bin (settled after pass 0);
//   row 1: 3000 values 2.0 + j * 2^-14 (bits 8..19 = j), one key per second digit (pass 1);
//   row 2: 1000 such values three times each, 3-way ties at the k-th key (all three passes, then
//          the equal keys by index);
//   row 3: as row 1 with j from 4095 down (the first digit's bin is the same, the order reversed).
TEST(CudaTopkSplit, StopsAfterAnyPass) {
  SAMEBITS_REQUIRE_CUDA();
  const std::int64_t n = 70001, k = 2048;
  std::vector<std::int32_t> bits(4 * n, 0x3f800000);
  for (std::int64_t j = 0; j < 2048; ++j) bits[0 * n + 34 * j + 5] = 0x40000000;
  for (std::int64_t j = 0; j < 3000; ++j)
    bits[1 * n + 23 * j + 7] = 0x40000000 | static_cast<std::int32_t>(j << 8);
  for (std::int64_t j = 0; j < 3000; ++j)
    bits[2 * n + 23 * j + 3] = 0x40000000 | static_cast<std::int32_t>((j % 1000) << 8);
  for (std::int64_t j = 0; j < 3000; ++j)
    bits[3 * n + 23 * j + 11] = 0x40000000 | static_cast<std::int32_t>((4095 - j) << 8);
  const at::Tensor x = at::tensor(bits, at::kInt).view({4, n}).view(at::kFloat);
  auto [expected_values, expected_indices] = stable_sort_topk(x, k);
  auto [twin_values, twin_indices] = invariant_topk(x, k);
  auto [values, indices] = invariant_topk(x.cuda(), k, "split_select");
  EXPECT_TRUE(same_selection(expected_values, expected_indices, values, indices));
  EXPECT_TRUE(same_selection(twin_values, twin_indices, values, indices));
  // Control: the rows differ in what they select (row 2's ties are not row 1's keys).
  EXPECT_FALSE(same_selection(values[1], indices[1], values[2], indices[2]));
}

// More segments than resident blocks (40 rows of 18 segments; the H100 holds 528 blocks): blocks
// take several segments a phase and several runs to order, and rows settle at different passes.
TEST(CudaTopkSplit, MoreSegmentsThanBlocks) {
  SAMEBITS_REQUIRE_CUDA();
  for (const char* kind : {"normal", "ties", "relu"}) {
    const at::Tensor x = topk_input(kind, 40, 70001, 37);
    auto [twin_values, twin_indices] = invariant_topk(x, 2048);
    auto [values, indices] = invariant_topk(x.cuda(), 2048, "split_select");
    EXPECT_TRUE(same_selection(twin_values, twin_indices, values, indices)) << kind;
  }
}

// "auto" takes split_select for up to kSplitSelectLongAutoRows rows longer than
// kSplitSelectLongAbove (8 here) and radix_select for more (130): the same selection either way,
// and a row alone gives its row in the batch.
TEST(CudaTopkSplit, AutoAgreesAcrossTheSwitch) {
  SAMEBITS_REQUIRE_CUDA();
  const at::Tensor x = topk_input("ties", 130, 70001, 31).cuda();
  kernels::TopkProblem many, few;
  many.rows = 130;
  few.rows = 8;
  many.k = few.k = 2048;
  many.max_length = few.max_length = 70001;
  ASSERT_FALSE(kernels::topk_prefers_split(many));
  ASSERT_TRUE(kernels::topk_prefers_split(few));
  auto [many_values, many_indices] = invariant_topk(x, 2048);                 // radix_select
  auto [few_values, few_indices] = invariant_topk(x.narrow(0, 32, 8), 2048);  // split_select
  EXPECT_TRUE(same_selection(many_values.narrow(0, 32, 8), many_indices.narrow(0, 32, 8),
                             few_values, few_indices));
  auto [one_values, one_indices] = invariant_topk(x.narrow(0, 129, 1), 2048);
  EXPECT_TRUE(same_selection(many_values[129], many_indices[129], one_values[0], one_indices[0]));
}

// split_select beyond its limits names them.
TEST(CudaTopkSplit, LimitsNamed) {
  SAMEBITS_REQUIRE_CUDA();
  const at::Tensor x = at::zeros({2, 10000}, at::TensorOptions().device(at::kCUDA));
  expect_error([&] { invariant_topk(x, 5000, "split_select"); }, "split_select takes k <= 4096");
}

// A misaligned, strided view (row stride N + 1, storage offset 1) selects as its copy does.
TEST(CudaTopkLayouts, OffsetStridedRows) {
  SAMEBITS_REQUIRE_CUDA();
  const at::Tensor wide = topk_input("ties", 16, 2049, 23).cuda();
  const at::Tensor view = wide.narrow(1, 1, 2048);
  for (const char* algorithm : {"warp_select", "radix_select", "split_select"}) {
    auto [values, indices] = invariant_topk(view, 32, algorithm);
    auto [copy_values, copy_indices] = invariant_topk(view.contiguous(), 32, algorithm);
    EXPECT_TRUE(same_selection(copy_values, copy_indices, values, indices)) << algorithm;
  }
}

}  // namespace invariant_topk_gpu_test_file
}  // namespace samebits
