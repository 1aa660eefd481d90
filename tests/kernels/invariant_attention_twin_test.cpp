// The attention CPU twin on raw buffers of exact size, torch-free (the sanitized build runs it
// too): packed sequences agree with float64 within bf16's rounding; a paged cache gives their bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/attention/invariant_attention.h"
#include "kernels/common/half_bits.h"
#include "tests/kernels/seeded_draws.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace invariant_attention_twin_test_file {}
using namespace invariant_attention_twin_test_file;
namespace invariant_attention_twin_test_file {

namespace k = samebits::kernels;

constexpr std::int64_t kHeads = 4, kKvHeads = 2, kDim = 64, kPage = 16;
// Two causal sequences: 3 queries over 1100 keys (two splits of 1024 keys, merged) and 5 over 70.
const std::vector<std::int64_t> kQueries = {3, 5}, kKeys = {1100, 70};

// bf16 values in [-1, 1] (float32's top half), seeded.
std::vector<std::uint16_t> bf16_values(std::int64_t n, std::uint64_t seed) {
  std::vector<std::uint16_t> v(static_cast<std::size_t>(n));
  std::uint64_t s = seed;
  for (auto& x : v) {
    next_draw(s);
    const float f = static_cast<float>(static_cast<double>(s >> 11) * 0x1p-53 * 2.0 - 1.0);
    x = static_cast<std::uint16_t>(k::float_to_bits(f) >> 16);
  }
  return v;
}

std::vector<std::int64_t> prefix_sums(const std::vector<std::int64_t>& lengths) {
  std::vector<std::int64_t> offsets(1, 0);
  for (std::int64_t n : lengths) offsets.push_back(offsets.back() + n);
  return offsets;
}

struct Inputs {
  std::vector<std::int64_t> q_offsets = prefix_sums(kQueries), kv_offsets = prefix_sums(kKeys);
  std::vector<std::uint16_t> q = bf16_values(q_offsets.back() * kHeads * kDim, 1);
  std::vector<std::uint16_t> k = bf16_values(kv_offsets.back() * kKvHeads * kDim, 2);
  std::vector<std::uint16_t> v = bf16_values(kv_offsets.back() * kKvHeads * kDim, 3);
};

// Packed queries [tokens, heads, dim] and their outputs and log-sum-exps; keys by the caller.
k::AttentionProblem packed_queries(const Inputs& in, std::vector<std::uint16_t>& out,
                                   std::vector<float>& lse) {
  k::AttentionProblem p;
  p.sequences = static_cast<std::int64_t>(kQueries.size());
  p.heads = kHeads;
  p.kv_heads = kKvHeads;
  p.head_dim = kDim;
  p.scale = 0.125f;
  p.q = in.q.data();
  p.q_offsets = in.q_offsets.data();
  p.max_q_len = *std::max_element(kQueries.begin(), kQueries.end());
  p.q_token_stride = p.out_token_stride = kHeads * kDim;
  p.q_head_stride = p.out_head_stride = kDim;
  p.k_token_stride = p.v_token_stride = kKvHeads * kDim;
  p.k_head_stride = p.v_head_stride = kDim;
  out.assign(in.q.size(), 0);
  lse.assign(static_cast<std::size_t>(in.q_offsets.back() * kHeads), 0.0f);
  p.out = out.data();
  p.lse = lse.data();
  p.lse_token_stride = kHeads;
  p.lse_head_stride = 1;
  return p;
}

TEST(AttentionTwin, PackedSequencesAgreeWithFloat64) {
  const Inputs in;
  std::vector<std::uint16_t> out;
  std::vector<float> lse;
  k::AttentionProblem p = packed_queries(in, out, lse);
  p.k = in.k.data();
  p.v = in.v.data();
  p.kv_offsets = in.kv_offsets.data();
  ASSERT_EQ(k::invariant_attention_cpu(p), k::Status::ok);
  const auto at = [](const std::vector<std::uint16_t>& x, std::int64_t i) {
    return static_cast<double>(k::bfloat16_to_float(x[static_cast<std::size_t>(i)]));
  };
  for (std::size_t b = 0; b < kQueries.size(); ++b) {
    for (std::int64_t i = 0; i < kQueries[b]; ++i) {
      const std::int64_t row = in.q_offsets[b] + i, visible = kKeys[b] - kQueries[b] + i + 1;
      for (std::int64_t h = 0; h < kHeads; ++h) {
        const std::int64_t g = h / (kHeads / kKvHeads);
        std::vector<double> logits(static_cast<std::size_t>(visible));
        for (std::int64_t t = 0; t < visible; ++t) {
          double dot = 0;
          for (std::int64_t j = 0; j < kDim; ++j)
            dot += at(in.q, (row * kHeads + h) * kDim + j) *
                   at(in.k, ((in.kv_offsets[b] + t) * kKvHeads + g) * kDim + j);
          logits[static_cast<std::size_t>(t)] = dot * 0.125;
        }
        const double m = *std::max_element(logits.begin(), logits.end());
        double l = 0;
        for (double x : logits) l += std::exp(x - m);
        const std::string where = "sequence " + std::to_string(b) + " query " + std::to_string(i) +
                                  " head " + std::to_string(h);
        EXPECT_NEAR(lse[static_cast<std::size_t>(row * kHeads + h)], m + std::log(l), 1e-4)
            << where;
        for (std::int64_t j = 0; j < kDim; ++j) {
          double o = 0;
          for (std::int64_t t = 0; t < visible; ++t)
            o += std::exp(logits[static_cast<std::size_t>(t)] - m) / l *
                 at(in.v, ((in.kv_offsets[b] + t) * kKvHeads + g) * kDim + j);
          ASSERT_NEAR(at(out, (row * kHeads + h) * kDim + j), o, 1.0 / 128)
              << where << " dim " << j;
        }
      }
    }
  }
}

// The same keys in a paged cache [pages, 16, kv heads, dim] whose pages lie in reversed order:
// every output and log-sum-exp bit as with the packed keys.
TEST(AttentionTwin, APagedCacheGivesThePackedBits) {
  const Inputs in;
  std::vector<std::uint16_t> packed_out, paged_out;
  std::vector<float> packed_lse, paged_lse;
  k::AttentionProblem packed = packed_queries(in, packed_out, packed_lse);
  packed.k = in.k.data();
  packed.v = in.v.data();
  packed.kv_offsets = in.kv_offsets.data();
  ASSERT_EQ(k::invariant_attention_cpu(packed), k::Status::ok);

  const std::int64_t page_elements = kPage * kKvHeads * kDim;
  const std::int64_t max_pages = (kKeys[0] + kPage - 1) / kPage;
  std::int64_t pages = 0;
  for (std::int64_t n : kKeys) pages += (n + kPage - 1) / kPage;
  std::vector<std::uint16_t> k_cache(static_cast<std::size_t>(pages * page_elements));
  std::vector<std::uint16_t> v_cache(k_cache.size());
  std::vector<std::int32_t> block_table(kKeys.size() * static_cast<std::size_t>(max_pages), -1);
  std::int64_t next = pages;
  for (std::size_t b = 0; b < kKeys.size(); ++b) {
    for (std::int64_t t = 0; t < kKeys[b]; ++t) {
      auto& page = block_table[b * static_cast<std::size_t>(max_pages) + t / kPage];
      if (t % kPage == 0) page = static_cast<std::int32_t>(--next);
      const auto from = (in.kv_offsets[b] + t) * kKvHeads * kDim;
      const auto to = page * page_elements + (t % kPage) * kKvHeads * kDim;
      std::copy_n(in.k.begin() + from, kKvHeads * kDim, k_cache.begin() + to);
      std::copy_n(in.v.begin() + from, kKvHeads * kDim, v_cache.begin() + to);
    }
  }
  ASSERT_EQ(next, 0);
  k::AttentionProblem paged = packed_queries(in, paged_out, paged_lse);
  paged.k = k_cache.data();
  paged.v = v_cache.data();
  paged.kv_lengths = kKeys.data();
  paged.block_table = block_table.data();
  paged.block_table_stride = max_pages;
  paged.page_size = kPage;
  paged.k_page_stride = paged.v_page_stride = page_elements;
  ASSERT_EQ(k::invariant_attention_cpu(paged), k::Status::ok);
  EXPECT_EQ(paged_out, packed_out);
  for (std::size_t r = 0; r < packed_lse.size(); ++r)
    ASSERT_EQ(k::float_to_bits(paged_lse[r]), k::float_to_bits(packed_lse[r])) << "row " << r;
}

}  // namespace invariant_attention_twin_test_file
}  // namespace samebits
