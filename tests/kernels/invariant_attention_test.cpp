// The invariant attention's CPU twin (which the CUDA kernel must equal bit for bit): within a
// derived bound of a float64 reference, and each row's bits independent of the batch, the
// chunking, prefill versus decode and the cache's paging. Controls show each comparison can fail.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "kernels/attention/invariant_attention_order.h"
#include "tests/kernels/attention_inputs.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace invariant_attention_test_file {}
using namespace invariant_attention_test_file;
namespace invariant_attention_test_file {

namespace order = kernels::attention_order;

// softmax(q k^T * scale) v and the log-sum-exp in float64 from the same (rounded) inputs, and per
// row the worst float32 error of a scaled score: scale * d * 2^-24 * max_c sum_j |q_j k_cj|.
struct Reference {
  at::Tensor out, lse, score_error;  // [q_len, H, d], [q_len, H], [q_len, H]
};
Reference reference(const AttentionShape& s, const SequenceCall& c) {
  const SequenceData d = sequence_data(s, c.seed, c.length);
  const std::int64_t group = s.heads / s.kv_heads;
  const double scale = 1.0 / std::sqrt(double(s.head_dim));
  const at::Tensor q = d.q.slice(0, c.kv_len - c.q_len, c.kv_len).to(at::kDouble).transpose(0, 1);
  const at::Tensor k =
      d.k.slice(0, 0, c.kv_len).to(at::kDouble).repeat_interleave(group, 1).transpose(0, 1);
  const at::Tensor v =
      d.v.slice(0, 0, c.kv_len).to(at::kDouble).repeat_interleave(group, 1).transpose(0, 1);
  at::Tensor scores = at::matmul(q, k.transpose(1, 2)) * scale;
  at::Tensor magnitude = at::matmul(q.abs(), k.abs().transpose(1, 2));
  if (s.causal) {
    const at::Tensor pos = at::arange(c.kv_len - c.q_len, c.kv_len).view({-1, 1});
    const at::Tensor future = at::arange(c.kv_len).view({1, -1}).gt(pos);
    scores.masked_fill_(future, -INFINITY);
    magnitude.masked_fill_(future, 0.0);
  }
  const at::Tensor lse = at::logsumexp(scores, -1);
  const at::Tensor out = at::matmul(at::exp(scores - lse.unsqueeze(-1)), v);
  const at::Tensor score_error =
      std::get<0>(magnitude.max(-1)) * (scale * double(s.head_dim) * std::ldexp(1.0, -24));
  return {out.transpose(0, 1), lse.transpose(0, 1), score_error.transpose(0, 1)};
}

// The bound, derived: half an ulp of the output type (2^-8 of |out| for bfloat16, 2^-11 for
// float16) on top of the float32 result's error, which is the scores' error (moving every
// probability by at most that factor: 2 * score_error * max|v|) plus the sums' rounding, at most
// n * 2^-22 of max|v| over n keys. The log-sum-exp moves by the scores' error plus n * 2^-22.
TEST(AttentionTwin, WithinTheBoundOfAFloat64Reference) {
  for (const auto dtype : {at::kBFloat16, at::kHalf}) {
    for (const std::int64_t d : {64, 128, 256}) {
      const AttentionShape s{dtype, 2, 1, d, true};
      const SequenceCall c{11, 1100, 1100, 150};  // rows that see one and two splits
      const AttentionResult r = run_attention(s, {c}, false);
      const Reference ref = reference(s, c);
      const double unit = dtype == at::kBFloat16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11);
      const double vmax = sequence_data(s, c.seed, c.length).v.abs().max().item<double>();
      const at::Tensor n =
          at::arange(c.kv_len - c.q_len, c.kv_len, at::kDouble).add(1).view({-1, 1});
      const at::Tensor f32_error =
          (ref.score_error * 2 * vmax + n * std::ldexp(1.0, -22) * vmax).unsqueeze(-1);
      const at::Tensor bound = ref.out.abs() * unit + f32_error * (1 + unit);
      const at::Tensor err = (r.out.to(at::kDouble) - ref.out).abs();
      EXPECT_TRUE(err.le(bound).all().item<bool>())
          << "d=" << d << " worst error/bound " << (err / bound).max().item<double>();
      const at::Tensor lse_err = (r.lse.to(at::kDouble) - ref.lse).abs();
      const at::Tensor lse_bound = ref.score_error + (ref.lse.abs() + 1) * n * std::ldexp(1.0, -22);
      EXPECT_TRUE(lse_err.le(lse_bound).all().item<bool>())
          << "d=" << d << " worst lse error/bound " << (lse_err / lse_bound).max().item<double>();
      // Control: the same bounds reject the neighbouring rows' results (an off-by-one position).
      const at::Tensor shifted = r.out.slice(0, 1).to(at::kDouble) - ref.out.slice(0, 0, -1);
      EXPECT_FALSE(shifted.abs().le(bound.slice(0, 0, -1)).all().item<bool>());
      const at::Tensor lse_shifted = r.lse.slice(0, 1).to(at::kDouble) - ref.lse.slice(0, 0, -1);
      EXPECT_FALSE(lse_shifted.abs().le(lse_bound.slice(0, 0, -1)).all().item<bool>());
    }
  }
}

// One sequence alone, and at positions 0 and 3 of a batch whose other sequences have lengths on
// both sides of the tile and split sizes (so the batch's maximum lengths change): the same bits.
TEST(AttentionTwin, ARowsBitsDoNotDependOnTheBatch) {
  const AttentionShape s{at::kBFloat16, 2, 2, 64, true};
  const SequenceCall mine{7, 1100, 1100, 90};
  const AttentionResult alone = run_attention(s, {mine}, false);
  const std::vector<SequenceCall> others{{1, 63, 63, 63}, {2, 2049, 2049, 3}, {3, 129, 129, 1}};
  const AttentionResult first = run_attention(s, {mine, others[0], others[1]}, false);
  const AttentionResult fourth = run_attention(s, {others[0], others[1], others[2], mine}, false);
  EXPECT_TRUE(same_bits(alone.rows(0), first.rows(0)));
  EXPECT_TRUE(same_bits(alone.rows(0), fourth.rows(3)));
  EXPECT_TRUE(same_bits(alone.lse_rows(0), fourth.lse_rows(3)));
}

// Chunked prefill at chunk sizes 16, 64, 333 and the whole, over packed keys and a cache paged
// by 16, and token-by-token decode of the last 40 positions: every row the one-shot prefill's bits.
TEST(AttentionTwin, ChunksDecodeAndPagesGiveThePrefillsBits) {
  for (const std::int64_t d : {64, 128}) {
    const AttentionShape s{at::kHalf, 2, 1, d, true};
    const std::int64_t length = 1030;  // crosses a split boundary
    const AttentionResult whole = run_attention(s, {{5, length, length, length}}, false);
    for (const std::int64_t chunk : {16, 64, 333, 1030}) {
      if (chunk == 16 && d == 128) continue;  // the many-call case once
      std::vector<SequenceCall> calls;
      for (std::int64_t end = std::min(chunk, length);; end = std::min(end + chunk, length)) {
        const std::int64_t begin = calls.empty() ? 0 : calls.back().kv_len;
        calls.push_back({5, length, end, end - begin});
        if (end == length) break;
      }
      const AttentionResult chunked = run_attention(s, calls, false, chunk == 64 ? 16 : 0);
      EXPECT_TRUE(same_bits(whole.out, chunked.out)) << "chunk " << chunk;
      EXPECT_TRUE(same_bits(whole.lse, chunked.lse)) << "chunk " << chunk;
    }
    std::vector<SequenceCall> decode{{5, length, length - 40, length - 40}};
    for (std::int64_t t = length - 39; t <= length; ++t) decode.push_back({5, length, t, 1});
    const AttentionResult decoded = run_attention(s, decode, false, 16);
    EXPECT_TRUE(same_bits(whole.out, decoded.out));
    EXPECT_TRUE(same_bits(whole.lse, decoded.lse));
  }
}

TEST(AttentionTwin, PagedCachesOfAnyPageSizeGiveTheSameBits) {
  const AttentionShape s{at::kBFloat16, 4, 1, 128, true};
  const std::vector<SequenceCall> calls{{21, 700, 700, 5}, {22, 1025, 1025, 1}, {23, 64, 64, 64}};
  const AttentionResult packed = run_attention(s, calls, false);
  for (const std::int64_t page : {1, 16, 64, 1000}) {
    const AttentionResult paged = run_attention(s, calls, false, page, page);
    EXPECT_TRUE(same_bits(packed.out, paged.out)) << "page " << page;
    EXPECT_TRUE(same_bits(packed.lse, paged.lse)) << "page " << page;
  }
}

// Controls: a row's bits change when one key it sees changes, and do not when a key past its
// causal position changes (so the comparisons above can fail, and the
// mask holds).
TEST(AttentionTwin, ControlsAVisibleKeyChangesTheBitsAFutureKeyDoesNot) {
  const AttentionShape s{at::kBFloat16, 2, 2, 64, true};
  const std::int64_t length = 300;
  const SequenceData d = sequence_data(s, 9, length);
  auto run_with = [&](const at::Tensor& k) {
    // One call over the raw tensors: the same layout as run_attention's packed one.
    namespace kn = kernels;
    at::Tensor out = at::zeros_like(d.q), lse = at::zeros({length, s.heads}, at::kFloat);
    const at::Tensor offsets = at::tensor(std::vector<std::int64_t>{0, length}, at::kLong);
    kn::AttentionProblem p;
    p.dtype = kn::DType::bf16;
    p.sequences = 1;
    p.heads = p.kv_heads = s.heads;
    p.head_dim = s.head_dim;
    p.scale = 0.125f;
    p.q = d.q.data_ptr();
    p.q_offsets = offsets.data_ptr<std::int64_t>();
    p.max_q_len = length;
    p.q_token_stride = p.out_token_stride = s.heads * s.head_dim;
    p.q_head_stride = p.out_head_stride = p.k_head_stride = p.v_head_stride = s.head_dim;
    p.k = k.data_ptr();
    p.v = d.v.data_ptr();
    p.kv_offsets = offsets.data_ptr<std::int64_t>();
    p.k_token_stride = p.v_token_stride = s.kv_heads * s.head_dim;
    p.out = out.data_ptr();
    p.lse = lse.data_ptr<float>();
    p.lse_token_stride = s.heads;
    p.lse_head_stride = 1;
    EXPECT_EQ(kn::invariant_attention_cpu(p), kn::Status::ok);
    return out;
  };
  const at::Tensor base = run_with(d.k);
  at::Tensor k = d.k.clone();
  k[200].add_(1.0);  // key 200 moves (and its scores with it)
  const at::Tensor changed = run_with(k);
  EXPECT_TRUE(same_bits(base.slice(0, 0, 200), changed.slice(0, 0, 200)));  // rows before 200
  EXPECT_FALSE(same_bits(base.slice(0, 200, 201), changed.slice(0, 200, 201)));
}

TEST(AttentionOrder, Exp2AndLog2AreWithinTwoUlp) {
  for (float x = -149.0f; x < 127.9f; x += 0.173f) {
    const double exact = std::exp2(double(x));
    const double ulp = std::max(std::ldexp(1.0, std::ilogb(exact) - 23), std::ldexp(1.0, -149));
    EXPECT_LE(std::abs(order::exp2(x) - exact), 2 * ulp) << x;
  }
  EXPECT_EQ(order::exp2(0.0f), 1.0f);
  EXPECT_EQ(order::exp2(-INFINITY), 0.0f);
  for (float x = 1e-30f; x < 1e30f; x *= 1.37f) {
    const double exact = std::log2(double(x));
    EXPECT_LE(std::abs(order::log2(x) - exact),
              2 * std::ldexp(1.0, std::ilogb(std::abs(exact) + 1e-300) - 23) + 1e-7)
        << x;
  }
  EXPECT_EQ(order::log2(1.0f), 0.0f);
}

// The twin's own rounding to bfloat16 and float16 is ATen's (round to nearest even), over every
// float16 value's neighbourhood and a sweep of floats.
TEST(AttentionOrder, RoundingToSixteenBitsIsAtensRounding) {
  const at::Tensor x =
      at::cat({at::randn({200000}) * 1000, at::randn({200000}) * 1e-6, at::randn({100000}) * 1e-8,
               at::tensor({65504.f, 65520.f, 65519.99f, 1e-7f, 2.98e-8f, -0.0f})});
  const at::Tensor bits = x.view(at::kInt).contiguous();
  const auto* f = reinterpret_cast<const std::uint32_t*>(bits.data_ptr<std::int32_t>());
  for (const auto dtype : {at::kBFloat16, at::kHalf}) {
    const at::Tensor expected = x.to(dtype).view(at::kShort).contiguous();
    const auto* e = reinterpret_cast<const std::uint16_t*>(expected.data_ptr<std::int16_t>());
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < x.numel(); ++i) {
      const std::uint16_t got =
          dtype == at::kBFloat16 ? order::to_bfloat16_bits(f[i]) : order::to_float16_bits(f[i]);
      wrong += got != e[i];
    }
    EXPECT_EQ(wrong, 0) << (dtype == at::kBFloat16 ? "bfloat16" : "float16");
  }
}

}  // namespace invariant_attention_test_file
}  // namespace samebits
