// The indexer's CPU twin on raw buffers of exact size, torch-free (the sanitized build runs it
// too): with exact inputs each item's scores are float64's, and its top k their stable sort's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/common/half_bits.h"
#include "kernels/indexer/invariant_indexer.h"
#include "tests/kernels/seeded_draws.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace invariant_indexer_twin_test_file {}
using namespace invariant_indexer_twin_test_file;
namespace invariant_indexer_twin_test_file {

namespace k = samebits::kernels;

// Small integers in [-2, 2], encoded as bf16 (the top half of float32) or fp8 e4m3fn bytes.
std::vector<int> small_integers(std::int64_t n, std::uint64_t seed) {
  std::vector<int> v(static_cast<std::size_t>(n));
  std::uint64_t s = seed;
  for (auto& x : v) {
    next_draw(s);
    x = static_cast<int>((s >> 33) % 5) - 2;
  }
  return v;
}
std::vector<std::uint16_t> as_bf16(const std::vector<int>& v) {
  std::vector<std::uint16_t> out;
  for (int x : v) out.push_back(static_cast<std::uint16_t>(k::float_to_bits(float(x)) >> 16));
  return out;
}
std::vector<std::uint8_t> as_e4m3(const std::vector<int>& v) {
  std::vector<std::uint8_t> out;
  for (int x : v) {
    const std::uint8_t magnitude = x == 0 ? 0x00 : (x == 1 || x == -1) ? 0x38 : 0x40;  // 0, 1, 2
    out.push_back(static_cast<std::uint8_t>(magnitude | (x < 0 ? 0x80 : 0x00)));
  }
  return out;
}

struct Case {
  bool fp8;
  std::int64_t heads, head_dim;
};

class IndexerTwinTest : public ::testing::TestWithParam<Case> {};

// Items of 0, 3, 37 and 64 keys packed end to end (k = 10); fp8 items carry scales of 0.5 and 4.
TEST_P(IndexerTwinTest, ExactInputsGiveFloat64ScoresAndTheirStableTopk) {
  const Case c = GetParam();
  const std::vector<std::int64_t> offsets = {0, 0, 3, 40, 104};
  const std::int64_t items = 4, total = offsets.back(), kk = 10, h = c.heads, d = c.head_dim;
  const auto q = small_integers(items * h * d, 3), keys = small_integers(total * d, 5);
  const auto w = small_integers(items * h, 7);
  const std::vector<float> weights(w.begin(), w.end());
  const std::vector<float> q_scale = {0.5f, 0.5f, 4.0f, 0.5f}, k_scale = {4.0f, 1.0f, 0.5f, 0.5f};
  const auto q_bf16 = as_bf16(q), keys_bf16 = as_bf16(keys);
  const auto q_e4m3 = as_e4m3(q), keys_e4m3 = as_e4m3(keys);
  std::vector<float> scores(static_cast<std::size_t>(total)), top_values(items * kk);
  std::vector<std::int64_t> top_indices(top_values.size());
  k::IndexerProblem p;
  p.input = c.fp8 ? k::IndexerInput::f8_e4m3 : k::IndexerInput::bf16;
  p.items = items;
  p.heads = h;
  p.head_dim = d;
  p.q = c.fp8 ? static_cast<const void*>(q_e4m3.data()) : q_bf16.data();
  p.keys = c.fp8 ? static_cast<const void*>(keys_e4m3.data()) : keys_bf16.data();
  p.offsets = offsets.data();
  p.weights = weights.data();
  p.q_scale = c.fp8 ? q_scale.data() : nullptr;
  p.k_scale = c.fp8 ? k_scale.data() : nullptr;
  p.max_length = 64;
  p.k = kk;
  p.scores = scores.data();
  p.top_values = top_values.data();
  p.top_indices = top_indices.data();
  ASSERT_EQ(k::invariant_indexer_cpu(p), k::Status::ok);
  for (std::int64_t b = 0; b < items; ++b) {
    const std::int64_t start = offsets[b], length = offsets[b + 1] - start;
    const double scale = c.fp8 ? double{q_scale[b]} * k_scale[b] : 1.0;
    std::vector<float> expected(static_cast<std::size_t>(length));
    for (std::int64_t t = 0; t < length; ++t) {
      double score = 0;
      for (std::int64_t head = 0; head < h; ++head) {
        double dot = 0;
        for (std::int64_t j = 0; j < d; ++j)
          dot += q[(b * h + head) * d + j] * keys[(start + t) * d + j];
        score += std::max(dot * scale, 0.0) * weights[b * h + head];
      }
      expected[t] = static_cast<float>(score);
      ASSERT_EQ(k::float_to_bits(scores[start + t]), k::float_to_bits(expected[t]))
          << "item " << b << " key " << t << ": " << scores[start + t] << " vs " << score;
    }
    std::vector<std::int64_t> order(static_cast<std::size_t>(length));
    std::iota(order.begin(), order.end(), std::int64_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::int64_t x, std::int64_t y) { return expected[x] > expected[y]; });
    for (std::int64_t j = 0; j < kk; ++j) {
      const std::int64_t slot = b * kk + j;
      if (j < length) {
        ASSERT_EQ(top_indices[slot], order[j]) << "item " << b << " slot " << j;
        ASSERT_EQ(top_values[slot], expected[order[j]]) << "item " << b << " slot " << j;
      } else {
        ASSERT_EQ(top_indices[slot], -1) << "item " << b << " slot " << j;
        ASSERT_EQ(top_values[slot], -std::numeric_limits<float>::infinity());
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cpu, IndexerTwinTest,
                         ::testing::Values(Case{false, 4, 8}, Case{false, 64, 128},
                                           Case{true, 4, 8}, Case{true, 16, 256}),
                         [](const auto& info) {
                           return std::string(info.param.fp8 ? "Fp8" : "Bf16") + "_H" +
                                  std::to_string(info.param.heads) + "_D" +
                                  std::to_string(info.param.head_dim);
                         });

// An item longer than max_length is marked (topk_guard_test.cpp has the corpus); heads the kernel
// does not take are refused.
TEST(IndexerTwin, RefusesShapesTheKernelCannotTake) {
  const std::vector<std::uint16_t> q(4 * 8), keys(5 * 8);
  const std::vector<std::int64_t> offsets = {0, 5};
  const std::vector<float> weights(4, 1.0f);
  std::vector<float> scores(5), top_values(2);
  std::vector<std::int64_t> top_indices(2);
  k::IndexerProblem p;
  p.items = 1;
  p.heads = 4;
  p.head_dim = 8;
  p.q = q.data();
  p.keys = keys.data();
  p.offsets = offsets.data();
  p.weights = weights.data();
  p.max_length = 4;
  p.k = 2;
  p.scores = scores.data();
  p.top_values = top_values.data();
  p.top_indices = top_indices.data();
  EXPECT_EQ(k::invariant_indexer_cpu(p), k::Status::ok) << "an item of 5 > 4";
  EXPECT_EQ(top_indices, (std::vector<std::int64_t>{-1, -1})) << "an item of 5 > 4: marked";
  EXPECT_TRUE(std::isnan(top_values[0]) && std::isnan(top_values[1]));
  p.max_length = 5;
  EXPECT_EQ(k::invariant_indexer_cpu(p), k::Status::ok);
  p.heads = 3;
  EXPECT_EQ(k::invariant_indexer_cpu(p), k::Status::invalid_argument) << "3 heads";
}

}  // namespace invariant_indexer_twin_test_file
}  // namespace samebits
