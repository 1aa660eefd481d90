// torch.ops.samebits.attention, attention_varlen and attention_with_kvcache as callers reach them
// (through the dispatcher): the three layouts give the same bits for the same sequences, new
// tokens appended to a paged cache give the prefill's bits, and bad input is a clear error.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <gtest/gtest.h>

#include "kernels/attention/binding.h"
#include "tests/kernels/attention_inputs.h"
#include "tests/kernels/expect_error.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace attention_binding_test_file {}
using namespace attention_binding_test_file;
namespace attention_binding_test_file {

using Outputs = std::tuple<at::Tensor, at::Tensor>;

Outputs dense_op(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("samebits::attention", "")
                       .typed<Outputs(const at::Tensor&, const at::Tensor&, const at::Tensor&, bool,
                                      std::optional<double>)>();
  return op.call(q, k, v, causal, std::nullopt);
}

Outputs varlen_op(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                  const at::Tensor& qo, const at::Tensor& ko) {
  static auto op =
      c10::Dispatcher::singleton()
          .findSchemaOrThrow("samebits::attention_varlen", "")
          .typed<Outputs(const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
                         const at::Tensor&, std::int64_t, bool, std::optional<double>, std::int64_t,
                         const std::optional<at::Tensor>&)>();
  return op.call(q, k, v, qo, ko, -1, true, std::nullopt, -1, std::nullopt);
}

// Three sequences of 200 tokens, H = 4, Hkv = 2, d = 64, bfloat16: [B, H, L, d] and packed.
struct Batch {
  at::Tensor q, k, v;  // [B, H or Hkv, L, d]
};
Batch dense_batch() {
  const AttentionShape s{at::kBFloat16, 4, 2, 64, true};
  std::vector<at::Tensor> q, k, v;
  for (std::uint64_t seed : {31, 32, 33}) {
    const SequenceData d = sequence_data(s, seed, 200);
    q.push_back(d.q.transpose(0, 1));
    k.push_back(d.k.transpose(0, 1));
    v.push_back(d.v.transpose(0, 1));
  }
  return {at::stack(q), at::stack(k), at::stack(v)};
}

at::Tensor packed(const at::Tensor& dense) {  // [B, H, L, d] -> [B * L, H, d]
  return dense.transpose(1, 2).reshape({-1, dense.size(1), dense.size(3)});
}

TEST(AttentionBinding, DenseVarlenAndPagedGiveTheSameBits) {
  const Batch b = dense_batch();
  const auto [out, lse] = dense_op(b.q, b.k, b.v, true);
  const at::Tensor offsets = at::tensor(std::vector<std::int64_t>{0, 200, 400, 600}, at::kLong);
  const auto [vout, vlse] = varlen_op(packed(b.q), packed(b.k), packed(b.v), offsets, offsets);
  EXPECT_TRUE(same_bits(packed(out), vout));
  EXPECT_TRUE(same_bits(lse.transpose(0, 1).reshape({4, -1}), vlse));
  // The same through the paged cache: pages of 16, sequence b's 13 pages at 13 * b + j.
  at::Tensor k_cache = at::zeros({39, 16, 2, 64}, b.k.options());
  at::Tensor v_cache = at::zeros_like(k_cache);
  const at::Tensor table = at::arange(39, at::kInt).view({3, 13});
  const at::Tensor none = at::zeros({3}, at::kLong);
  const AttentionOutputs paged = invariant_attention_with_kvcache(
      packed(b.q), k_cache, v_cache, table, none, offsets, packed(b.k), packed(b.v));
  EXPECT_TRUE(same_bits(vout, paged.out));
  EXPECT_TRUE(same_bits(vlse, paged.lse));
  // Control: a strided (transposed) q gives the same bits as its contiguous copy...
  const auto [tout, tlse] =
      dense_op(b.q.transpose(2, 3).contiguous().transpose(2, 3), b.k, b.v, true);
  EXPECT_TRUE(same_bits(out, tout));
  // ...and non-causal attention, which sees other keys, does not.
  EXPECT_FALSE(same_bits(out, std::get<0>(dense_op(b.q, b.k, b.v, false))));
}

// A prefix of 150 tokens in the cache, then 50 new tokens appended through k_new and v_new: the
// new rows are the one-shot prefill's last 50 rows, and the cache holds the new keys.
TEST(AttentionBinding, AppendingToThePagedCacheGivesThePrefillsBits) {
  const Batch b = dense_batch();
  const auto [out, lse] = dense_op(b.q, b.k, b.v, true);
  at::Tensor k_cache = at::zeros({40, 16, 2, 64}, b.k.options());
  at::Tensor v_cache = at::zeros_like(k_cache);
  // Shuffled pages, one spare.
  const at::Tensor table = at::randperm(40, at::kLong).slice(0, 0, 39).to(at::kInt).view({3, 13});
  const at::Tensor prefix = at::tensor(std::vector<std::int64_t>{0, 150, 300, 450}, at::kLong);
  const at::Tensor none = at::zeros({3}, at::kLong);
  auto rows = [](const at::Tensor& x, std::int64_t begin, std::int64_t end) {
    return packed(x.slice(2, begin, end));
  };
  invariant_attention_with_kvcache(rows(b.q, 0, 150), k_cache, v_cache, table, none, prefix,
                                   rows(b.k, 0, 150), rows(b.v, 0, 150));
  const at::Tensor fifty = at::tensor(std::vector<std::int64_t>{0, 50, 100, 150}, at::kLong);
  const at::Tensor cached = at::full({3}, 150, at::kLong);
  const AttentionOutputs next =
      invariant_attention_with_kvcache(rows(b.q, 150, 200), k_cache, v_cache, table, cached, fifty,
                                       rows(b.k, 150, 200), rows(b.v, 150, 200));
  EXPECT_TRUE(same_bits(rows(out, 150, 200), next.out));
}

TEST(AttentionBinding, BadInputIsAnErrorNamingWhatIsAccepted) {
  const Batch b = dense_batch();
  expect_error([&] { dense_op(b.q.to(at::kFloat), b.k, b.v, true); },
               "q takes bfloat16 or float16, not Float");
  expect_error([&] { dense_op(b.q, b.k.to(at::kHalf), b.v, true); }, "k must have q's dtype");
  expect_error([&] { dense_op(b.q.slice(3, 0, 32), b.k, b.v, true); },
               "head dim d must be 64, 128 or 256, got 32");
  expect_error([&] { dense_op(b.q.slice(1, 0, 3), b.k, b.v, true); },
               "H (3) must be a multiple of Hkv (2)");
  expect_error([&] { dense_op(b.q, b.k.slice(0, 0, 2), b.v, true); }, "k and v must be [B, Hkv");
  const at::Tensor bad = at::tensor(std::vector<std::int64_t>{0, 300, 200, 600}, at::kLong);
  const at::Tensor good = at::tensor(std::vector<std::int64_t>{0, 200, 400, 600}, at::kLong);
  expect_error([&] { varlen_op(packed(b.q), packed(b.k), packed(b.v), bad, good); },
               "offsets must rise to at most q.size(0) = 600");
  expect_error([&] { varlen_op(packed(b.q), packed(b.k), packed(b.v), good, good.to(at::kInt)); },
               "kv_offsets must be int64 [B + 1]");
  at::Tensor k_cache = at::zeros({10, 16, 2, 64}, b.k.options()), v_cache = at::zeros_like(k_cache);
  const at::Tensor table = at::arange(39, at::kInt).view({3, 13});
  expect_error(
      [&] {
        invariant_attention_with_kvcache(packed(b.q), k_cache, v_cache, table,
                                         at::zeros({3}, at::kLong), good);
      },
      "block_table[0][10] = 10 is not a page of k_cache (0 .. 9)");
  expect_error(
      [&] {
        invariant_attention_with_kvcache(packed(b.q), k_cache, v_cache, table,
                                         at::zeros({3}, at::kLong), good, packed(b.k));
      },
      "give k_new and v_new together");
  expect_error(
      [&] {
        invariant_attention_with_kvcache(packed(b.q), k_cache, v_cache, table.slice(1, 0, 5),
                                         at::zeros({3}, at::kLong), good);
      },
      "sequence 0 needs 13 pages of 16 for 200 keys; block_table has 5");
}

TEST(AttentionBinding, AnEmptyBatchGivesEmptyOutputs) {
  const at::Tensor q = at::zeros({0, 4, 64}, at::kBFloat16);
  const at::Tensor offsets = at::zeros({1}, at::kLong);
  const auto [out, lse] = varlen_op(q, q.slice(1, 0, 2), q.slice(1, 0, 2), offsets, offsets);
  EXPECT_EQ(out.numel(), 0);
  EXPECT_EQ(lse.numel(), 0);
}

}  // namespace attention_binding_test_file
}  // namespace samebits
