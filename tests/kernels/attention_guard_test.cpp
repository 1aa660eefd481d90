// The attention bindings' metadata checks on the CPU (label "cpu"): host metadata are checked there
// with their messages (offsets, cache lengths, pages, the max_q_len and max_kv_len bounds), the
// status argument is checked, and a bound that holds changes no bit.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/attention/binding.h"
#include "kernels/common/row_guard.h"
#include "tests/kernels/attention_inputs.h"
#include "tests/kernels/bit_compare.h"
#include "tests/kernels/expect_error.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace attention_guard_test_file {}
using namespace attention_guard_test_file;
namespace attention_guard_test_file {

at::Tensor longs(const std::vector<std::int64_t>& v) {
  return at::tensor(v, at::kLong);
}

// Two sequences of 30 and 50 tokens, H = 4, Hkv = 2, d = 64, packed.
struct Packed {
  at::Tensor q, k, v, offsets;
};
Packed packed_batch() {
  const AttentionShape s{at::kBFloat16, 4, 2, 64, true};
  const SequenceData a = sequence_data(s, 41, 30), b = sequence_data(s, 42, 50);
  return {at::cat({a.q, b.q}), at::cat({a.k, b.k}), at::cat({a.v, b.v}), longs({0, 30, 80})};
}

// The same batch in a paged cache of 8 pages of 16, sequence b at pages 4 b .. 4 b + 3.
struct Paged {
  at::Tensor q, k_cache, v_cache, table, cached, offsets;
};
Paged paged_batch() {
  const Packed p = packed_batch();
  at::Tensor kc = at::zeros({8, 16, 2, 64}, p.k.options()), vc = at::zeros_like(kc);
  const std::int64_t starts[] = {0, 30}, lengths[] = {30, 50};
  for (int b = 0; b < 2; ++b) {
    for (std::int64_t t = 0; t < lengths[b]; ++t) {
      kc[4 * b + t / 16][t % 16].copy_(p.k[starts[b] + t]);
      vc[4 * b + t / 16][t % 16].copy_(p.v[starts[b] + t]);
    }
  }
  // The last token of each sequence is the new one: queries of rows 29 and 79.
  const at::Tensor q = at::stack({p.q[29], p.q[79]});
  return {q, kc, vc, at::arange(8, at::kInt).view({2, 4}), longs({29, 49}), longs({0, 1, 2})};
}

TEST(AttentionGuardHost, VarlenOffsetsAndBoundsAreCheckedWithTheirMessages) {
  const Packed b = packed_batch();
  expect_error(
      [&] {
        invariant_attention_varlen(b.q, b.k, b.v, longs({0, 30, 81}), b.offsets);
      },
      "offsets must rise to at most q.size(0) = 80; row 1 has [30, 81)");
  expect_error(
      [&] {
        invariant_attention_varlen(b.q, b.k, b.v, b.offsets, longs({0, 40, 20}));
      },
      "offsets must rise to at most k.size(0) = 80; row 1 has [40, 20)");
  expect_error(
      [&] {
        invariant_attention_varlen(b.q, b.k, b.v, longs({-1, 30, 80}), b.offsets);
      },
      "offsets[0] must be >= 0, got -1");
  expect_error([&] { invariant_attention_varlen(b.q, b.k, b.v, b.offsets, b.offsets, 40); },
               "a row of length 50 exceeds max_length = 40");
  expect_error(
      [&] {
        invariant_attention_varlen(b.q, b.k, b.v, b.offsets, b.offsets, -1, true, std::nullopt, 49);
      },
      "a row of length 50 exceeds max_length = 49");
  expect_error(
      [&] {
        invariant_attention_varlen(b.q, b.k, b.v, b.offsets, b.offsets, -1, true, std::nullopt, -1,
                                   at::zeros({2}, at::kInt));
      },
      "status must be an int32 tensor of one element");
}

TEST(AttentionGuardHost, PagedMetadataAreCheckedWithTheirMessages) {
  const Paged p = paged_batch();
  auto call = [&](const at::Tensor& table, const at::Tensor& cached, std::int64_t max_kv_len) {
    invariant_attention_with_kvcache(p.q, p.k_cache, p.v_cache, table, cached, p.offsets,
                                     std::nullopt, std::nullopt, -1, true, std::nullopt,
                                     max_kv_len);
  };
  expect_error([&] { call(p.table, longs({29, -2}), -1); }, "cache_lengths[1] = -2 is negative");
  expect_error([&] { call(p.table, p.cached, 49); },
               "sequence 1 has 50 keys, above max_kv_len = 49");
  expect_error([&] { call(p.table.slice(1, 0, 3), p.cached, -1); },
               "sequence 1 needs 4 pages of 16 for 50 keys; block_table has 3");
  at::Tensor outside = p.table.clone();
  outside[0][1] = 8;
  expect_error([&] { call(outside, p.cached, -1); },
               "block_table[0][1] = 8 is not a page of k_cache (0 .. 7)");
  expect_error(
      [&] {
        invariant_attention_with_kvcache(p.q, p.k_cache, p.v_cache, p.table, p.cached,
                                         longs({0, 1, 3}));
      },
      "offsets must rise to at most q.size(0) = 2; row 1 has [1, 3)");
  // The control: an entry past the pages a sequence uses is no flaw (never read).
  at::Tensor unused = p.table.clone();
  unused[0][3] = -9;  // sequence 0's 30 keys use 2 pages
  EXPECT_NO_THROW(call(unused, p.cached, -1));
}

// On the CPU a bound that holds (max_q_len, max_kv_len) changes no bit, and a status given stays 0.
TEST(AttentionGuardHost, BoundsThatHoldChangeNoBit) {
  const Packed b = packed_batch();
  const AttentionOutputs plain = invariant_attention_varlen(b.q, b.k, b.v, b.offsets, b.offsets);
  const at::Tensor status = at::zeros({1}, at::kInt);
  const AttentionOutputs bounded = invariant_attention_varlen(b.q, b.k, b.v, b.offsets, b.offsets,
                                                              64, true, std::nullopt, 4096, status);
  EXPECT_TRUE(same_bits(plain.out, bounded.out));
  EXPECT_TRUE(same_bits(plain.lse, bounded.lse));
  EXPECT_EQ(status.item<std::int32_t>(), 0);
  const Paged p = paged_batch();
  const AttentionOutputs paged =
      invariant_attention_with_kvcache(p.q, p.k_cache, p.v_cache, p.table, p.cached, p.offsets);
  const AttentionOutputs paged_bounded = invariant_attention_with_kvcache(
      p.q, p.k_cache, p.v_cache, p.table, p.cached, p.offsets, std::nullopt, std::nullopt, 1, true,
      std::nullopt, 64, status);
  EXPECT_TRUE(same_bits(paged.out, paged_bounded.out));
  // The paged rows are the packed call's last rows of each sequence (the same keys).
  EXPECT_TRUE(same_bits(at::stack({plain.out[29], plain.out[79]}), paged.out));
}

// The flaw bits are distinct, so a status word names every flaw it holds.
TEST(AttentionGuardHost, FlawBitsAreDistinct) {
  const std::int32_t bits[] = {kernels::kRowOutside,       kernels::kRowDecreasing,
                               kernels::kRowTooLong,       kernels::kNegativeCacheLength,
                               kernels::kPagesBeyondTable, kernels::kPageOutside};
  std::int32_t seen = 0;
  for (const std::int32_t b : bits) {
    EXPECT_EQ(b & (b - 1), 0) << b << " is not one bit";
    EXPECT_EQ(seen & b, 0) << b << " is taken twice";
    seen |= b;
  }
}

}  // namespace attention_guard_test_file
}  // namespace samebits
