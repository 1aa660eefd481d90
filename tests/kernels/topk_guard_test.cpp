// The row guard of top-k and the indexer on the CPU (label "cpu"): each hostile row's flaws as
// stated, the twins marking exactly those rows (NaN, -1, status) and selecting the rest as a
// stable sort does, and the bindings' host-side checks, status argument and debug switch.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "kernels/common/binding_support.h"
#include "kernels/indexer/binding.h"
#include "kernels/topk/binding.h"
#include "tests/kernels/expect_error.h"
#include "tests/kernels/hostile_offsets.h"
#include "tests/kernels/topk_oracle.h"
#include "tests/support/tensor_bits.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace topk_guard_test_file {}
using namespace topk_guard_test_file;
namespace topk_guard_test_file {

// Every row's flaws are the ones stated by hand; a flawed row reads as empty at 0.
TEST(RowGuard, FlawsOfEveryHostileRowAsStated) {
  for (const HostileCase& c : hostile_cases()) {
    for (std::int64_t r = 0; r < rows_of(c); ++r) {
      const kernels::GuardedRow row =
          kernels::guarded_row(c.offsets.data(), r, c.total, c.max_length);
      EXPECT_EQ(row.flaws, c.flaws[r]) << c.name << " row " << r;
      if (row.flaws) {
        EXPECT_EQ(row.start, 0) << c.name << " row " << r;
        EXPECT_EQ(row.length, 0) << c.name << " row " << r;
      } else {
        EXPECT_EQ(row.start, c.offsets[r]);
        EXPECT_EQ(row.length, c.offsets[r + 1] - c.offsets[r]);
      }
    }
  }
  // A row exactly at the bounds is clean; one element more is not.
  EXPECT_EQ(kernels::row_flaws(0, 300, 300, 300), 0);
  EXPECT_EQ(kernels::row_flaws(300, 300, 300, 0), 0);
  EXPECT_EQ(kernels::row_flaws(0, 301, 300, 301), kernels::kRowOutside);
  EXPECT_EQ(kernels::row_flaws(0, 300, 300, 299), kernels::kRowTooLong);
}

// Row [start, end) of values alone, by ATen's stable sort: its first min(k, length), then the
// -inf / -1 filler.
TopkOutcome sorted_row(const at::Tensor& values, std::int64_t start, std::int64_t end,
                       std::int64_t k) {
  TopkOutcome out;
  out.values = at::full({k}, -INFINITY, values.options());
  out.indices = at::full({k}, -1, values.options().dtype(at::kLong));
  const std::int64_t taken = std::min(end - start, k);
  if (taken > 0) {
    auto [v, i] = stable_sort_topk(values.slice(0, start, end), taken);
    out.values.narrow(0, 0, taken).copy_(v);
    out.indices.narrow(0, 0, taken).copy_(i);
  }
  return out;
}

// Flawed rows are marked in every slot and reported; every other row is its stable sort's.
TEST(TopkGuardTwin, MarksExactlyTheFlawedRows) {
  for (const HostileCase& c : hostile_cases()) {
    for (const at::ScalarType dtype : {at::kFloat, at::kHalf, at::kBFloat16}) {
      const at::Tensor values = at::randn({c.total}, at::kFloat).to(dtype);
      const std::int64_t k = 7;
      const TopkOutcome got = twin_topk(values, c, k);
      EXPECT_EQ(got.status, stated_status(c)) << c.name;
      for (std::int64_t r = 0; r < rows_of(c); ++r) {
        if (c.flaws[r]) {
          for (std::int64_t j = 0; j < k; ++j) {
            EXPECT_EQ(bits_of(got.values[r], j), marked_bits(dtype)) << c.name << " row " << r;
            EXPECT_EQ(got.indices[r][j].item<std::int64_t>(), -1) << c.name << " row " << r;
          }
        } else {
          const TopkOutcome want = sorted_row(values, c.offsets[r], c.offsets[r + 1], k);
          EXPECT_TRUE(same_selection(want.values, want.indices, got.values[r], got.indices[r]))
              << c.name << " row " << r;
        }
      }
    }
  }
}

// The status word is OR-ed into, never cleared: bits already set stay set.
TEST(TopkGuardTwin, StatusAccumulates) {
  const HostileCase c = hostile_cases()[3];  // decreasing
  TopkOutcome first = twin_topk(at::randn({c.total}), c, 3);
  std::int32_t status = 8;
  kernels::TopkProblem p;
  const at::Tensor values = at::randn({c.total});
  p.values = values.const_data_ptr();
  p.rows = rows_of(c);
  p.offsets = c.offsets.data();
  p.max_length = c.max_length;
  p.total = c.total;
  p.k = 3;
  p.out_values = first.values.mutable_data_ptr();
  p.out_indices = first.indices.mutable_data_ptr<std::int64_t>();
  p.status = &status;
  ASSERT_EQ(kernels::invariant_topk_cpu(p), kernels::Status::ok);
  EXPECT_EQ(status, 8 | kernels::kRowDecreasing);
}

// A flawed item writes no score and its top-k slots are marked; a clean item is its own twin
// call's, alone (unless it overlaps another: then only unmarked); positions no clean item covers
// keep what they held.
TEST(IndexerGuardTwin, MarksExactlyTheFlawedItems) {
  using kernels::IndexerAlgorithm;
  for (const HostileCase& c : hostile_cases()) {
    for (const IndexerAlgorithm algorithm :
         {IndexerAlgorithm::exact, IndexerAlgorithm::tensor_cores}) {
      const IndexerInputs in = indexer_inputs(c, 11);
      const std::int64_t k = 5;
      const IndexerOutcome got = twin_indexer(in, c, k, algorithm);
      EXPECT_EQ(got.status, stated_status(c)) << c.name;
      at::Tensor covered = at::zeros({c.total}, at::kBool);
      for (std::int64_t r = 0; r < rows_of(c); ++r) {
        if (c.flaws[r]) {
          for (std::int64_t j = 0; j < k; ++j) {
            EXPECT_EQ(bits_of(got.top_values[r], j), marked_bits(at::kFloat)) << c.name;
            EXPECT_EQ(got.top_indices[r][j].item<std::int64_t>(), -1) << c.name;
          }
          continue;
        }
        const std::int64_t start = c.offsets[r], end = c.offsets[r + 1];
        covered.slice(0, start, end).fill_(true);
        if (overlaps_clean_row(c, r)) {  // unspecified but unmarked
          EXPECT_GE(got.top_indices[r][0].item<std::int64_t>(), 0) << c.name << " item " << r;
          continue;
        }
        const HostileCase alone{
            c.name + " alone", end - start, c.max_length, {0, end - start}, {0}};
        const IndexerInputs one{in.q.narrow(0, r, 1).contiguous(),
                                in.keys.slice(0, start, end).contiguous(),
                                in.weights.narrow(0, r, 1).contiguous()};
        const IndexerOutcome want = twin_indexer(one, alone, k, algorithm);
        EXPECT_TRUE(same_selection(want.top_values[0], want.top_indices[0], got.top_values[r],
                                   got.top_indices[r]))
            << c.name << " item " << r;
        EXPECT_TRUE(at::equal(want.scores, got.scores.slice(0, start, end))) << c.name;
      }
      EXPECT_TRUE(
          got.scores.masked_select(covered.logical_not()).eq(kUnwrittenScore).all().item<bool>())
          << c.name << ": a flawed item wrote a score";
    }
  }
}

// Host offsets are checked eagerly, as before, whatever unsafe says (a no-op now).
TEST(TopkGuardBinding, HostOffsetsRaiseTheirMessages) {
  const at::Tensor values = at::randn({300});
  const auto offsets = [](std::vector<std::int64_t> o) {
    return at::tensor(o, at::TensorOptions().dtype(at::kLong));
  };
  expect_error(
      [&] {
        invariant_topk_varlen(values, offsets({0, 100, 301}), 3);
      },
      "offsets must rise to at most values.numel() = 300; row 1 has [100, 301)");
  expect_error(
      [&] {
        invariant_topk_varlen(values, offsets({0, 200, 100, 300}), 3);
      },
      "row 1 has [200, 100)");
  expect_error(
      [&] {
        invariant_topk_varlen(values, offsets({0, 10, 200, 300}), 3, 150, "auto", true);
      },
      "a row of length 190 exceeds max_length = 150");
  expect_error(
      [&] {
        invariant_topk_varlen(values, offsets({-5, 10, 20}), 3);
      },
      "offsets[0] must be >= 0, got -5");
}

// The status argument: int32, one element, on values' device; it is left alone by a clean call.
TEST(TopkGuardBinding, StatusArgumentChecked) {
  const at::Tensor values = at::randn({300});
  const at::Tensor offsets = at::tensor({0, 100, 300}, at::TensorOptions().dtype(at::kLong));
  expect_error(
      [&] {
        invariant_topk_varlen(values, offsets, 3, -1, "auto", false, at::zeros({1}, at::kLong));
      },
      "samebits.topk_varlen: status must be an int32 tensor of one element on cpu, got Long");
  expect_error(
      [&] {
        invariant_topk_varlen(values, offsets, 3, -1, "auto", false, at::zeros({2}, at::kInt));
      },
      "status must be an int32 tensor of one element");
  const at::Tensor status = at::zeros({1}, at::kInt);
  auto [v, i] = invariant_topk_varlen(values, offsets, 3, -1, "auto", false, status);
  EXPECT_EQ(status.item<std::int32_t>(), 0);
  const IndexerInputs in = indexer_inputs(hostile_cases()[0], 3);
  expect_error(
      [&] {
        invariant_indexer(in.q, in.keys, at::tensor({0, 100, 100, 300}, at::kLong), in.weights, 4,
                          -1, std::nullopt, std::nullopt, false, kernels::IndexerAlgorithm::exact,
                          at::zeros({1}, at::kFloat));
      },
      "samebits.indexer: status must be an int32 tensor of one element");
}

// The bound that sizes a launch: host offsets give the longest row (or max_length), checked.
TEST(TopkGuardBinding, HostBoundIsTheLongestRow) {
  const at::Tensor offsets = at::tensor({0, 100, 100, 300}, at::TensorOptions().dtype(at::kLong));
  EXPECT_EQ(longest_row_bound(offsets, 300, "values.numel()", -1, 1000, "t"), 200);
  EXPECT_EQ(longest_row_bound(offsets, 300, "values.numel()", 250, 1000, "t"), 250);
  expect_error([&] { longest_row_bound(offsets, 300, "values.numel()", 150, 1000, "t"); },
               "samebits.t: a row of length 200 exceeds max_length = 150");
}

// The debug switch: set to anything but "" or "0".
TEST(TopkGuardBinding, DebugSwitch) {
  const char* before = std::getenv("SAMEBITS_DEBUG_METADATA");
  const std::string saved = before ? before : "";
  unsetenv("SAMEBITS_DEBUG_METADATA");
  EXPECT_FALSE(debug_metadata());
  setenv("SAMEBITS_DEBUG_METADATA", "0", 1);
  EXPECT_FALSE(debug_metadata());
  setenv("SAMEBITS_DEBUG_METADATA", "", 1);
  EXPECT_FALSE(debug_metadata());
  setenv("SAMEBITS_DEBUG_METADATA", "1", 1);
  EXPECT_TRUE(debug_metadata());
  if (before)
    setenv("SAMEBITS_DEBUG_METADATA", saved.c_str(), 1);
  else
    unsetenv("SAMEBITS_DEBUG_METADATA");
}

}  // namespace topk_guard_test_file
}  // namespace samebits
