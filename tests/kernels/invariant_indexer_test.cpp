// The indexer's CPU twin: exact inputs give float64's scores bit for bit (bf16 and fp8 with
// scales), normal inputs stay inside the stated error bound, fp8 decoding matches ATen's, errors.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "kernels/indexer/binding.h"
#include "kernels/indexer/invariant_indexer_order.h"
#include "tests/kernels/expect_error.h"
#include "tests/kernels/indexer_inputs.h"
#include "tests/kernels/topk_oracle.h"

namespace samebits {
namespace {

struct ExactCase {
  at::ScalarType dtype;
  std::int64_t heads, head_dim;
};

class TwinExactTest : public ::testing::TestWithParam<ExactCase> {};

// Every partial result is exact, so any order of the same operations gives the float64 value;
// the top-k must then be the stable sort of the float64 scores (ties included).
TEST_P(TwinExactTest, ScoresAndTopkEqualFloat64) {
  const ExactCase& c = GetParam();
  const IndexerBatch b = indexer_batch({37, 64, 130}, c.heads, c.head_dim, c.dtype, true, 3);
  const std::int64_t k = 20;
  const IndexerOutputs out =
      invariant_indexer(b.q, b.keys, b.offsets, b.weights, k, -1, b.q_scale, b.k_scale);
  for (std::int64_t item = 0; item < 3; ++item) {
    const std::int64_t start = b.offsets[item].item<std::int64_t>();
    const at::Tensor expected = indexer_scores_float64(b, item).to(at::kFloat);
    const at::Tensor scores = out.scores.narrow(0, start, expected.numel());
    ASSERT_TRUE(at::equal(expected.view(at::kInt), scores.view(at::kInt)))
        << "item " << item << ": first difference at "
        << expected.ne(scores).nonzero().view(-1)[0].item<std::int64_t>();
    auto [top_values, top_indices] = stable_sort_topk(expected, k);
    EXPECT_TRUE(
        same_selection(top_values, top_indices, out.top_values[item], out.top_indices[item]))
        << "item " << item;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, TwinExactTest,
                         ::testing::Values(ExactCase{at::kBFloat16, 4, 8},
                                           ExactCase{at::kBFloat16, 64, 128},
                                           ExactCase{at::kFloat8_e4m3fn, 4, 8},
                                           ExactCase{at::kFloat8_e4m3fn, 16, 128}),
                         [](const auto& info) {
                           return std::string(info.param.dtype == at::kBFloat16 ? "Bf16" : "Fp8") +
                                  "_H" + std::to_string(info.param.heads) + "_D" +
                                  std::to_string(info.param.head_dim);
                         });

// Normal inputs: |score - float64| <= gamma(d + H + 1) * sum_h |w_h| sum_j |q_hj k_tj|, the
// standard bound for d exact products summed in float32, one multiply by w, H terms summed.
TEST(TwinReference, WithinStatedBound) {
  const std::int64_t heads = 64, head_dim = 128;
  const IndexerBatch b = indexer_batch({300}, heads, head_dim, at::kBFloat16, false, 9);
  const IndexerOutputs out = invariant_indexer(b.q, b.keys, b.offsets, b.weights, 16);
  const at::Tensor expected = indexer_scores_float64(b, 0);
  const at::Tensor magnitude = at::matmul(b.q_float[0].abs(), b.keys_float.abs().t())
                                   .mul(b.weights[0].to(at::kDouble).abs().unsqueeze(1))
                                   .sum(0);
  const double n = static_cast<double>(head_dim + heads + 1), u = std::ldexp(1.0, -24);
  const at::Tensor bound = magnitude * (n * u / (1 - n * u));
  const at::Tensor error = (out.scores.to(at::kDouble) - expected).abs();
  const at::Tensor over = error.gt(bound);
  ASSERT_FALSE(over.any().item<bool>())
      << "token " << over.nonzero().view(-1)[0].item<std::int64_t>() << " exceeds the bound";
  EXPECT_GT(error.max().item<double>(), 0.0) << "normal inputs should round somewhere";
}

// The twin's fp8 decoding against ATen's conversion for all 256 encodings.
TEST(Fp8Decoding, AllEncodingsMatchAten) {
  const at::Tensor bytes = at::arange(256, at::kInt).to(at::kByte);
  const at::Tensor aten = bytes.view(at::kFloat8_e4m3fn).to(at::kFloat);
  for (int v = 0; v < 256; ++v) {
    const float ours = kernels::indexer_order::e4m3_to_float(static_cast<std::uint8_t>(v));
    const float theirs = aten[v].item<float>();
    if (std::isnan(theirs)) {
      EXPECT_TRUE(std::isnan(ours)) << "encoding 0x" << std::hex << v;
    } else {
      EXPECT_EQ(std::signbit(ours), std::signbit(theirs)) << "encoding 0x" << std::hex << v;
      EXPECT_EQ(ours, theirs) << "encoding 0x" << std::hex << v;
    }
  }
}

// relu keeps NaN and sends -0 and negatives to +0, as the order header says.
TEST(IndexerOrder, Relu) {
  using kernels::indexer_order::relu;
  EXPECT_TRUE(std::isnan(relu(NAN)));
  EXPECT_FALSE(std::signbit(relu(-0.0f)));
  EXPECT_EQ(relu(-2.0f), 0.0f);
  EXPECT_EQ(relu(3.0f), 3.0f);
}

TEST(IndexerErrors, NameTheArgumentAndAcceptedValues) {
  const IndexerBatch b = indexer_batch({40}, 4, 8, at::kBFloat16, true, 1);
  expect_error([&] { invariant_indexer(b.q.narrow(1, 0, 3), b.keys, b.offsets, b.weights, 4); },
               "must be 4, 8, 16, 32 or 64, got 3");
  expect_error(
      [&] { invariant_indexer(b.q.to(at::kHalf), b.keys.to(at::kHalf), b.offsets, b.weights, 4); },
      "bfloat16 or float8_e4m3fn");
  expect_error([&] { invariant_indexer(b.q, b.keys.to(at::kFloat), b.offsets, b.weights, 4); },
               "q and keys must share a dtype");
  expect_error(
      [&] {
        invariant_indexer(b.q, b.keys, b.offsets, b.weights, 4, -1, at::ones({1}), std::nullopt);
      },
      "float8_e4m3fn inputs only");
  expect_error(
      [&] {
        invariant_indexer(b.q, b.keys, at::tensor({0, 41}, at::kLong), b.weights, 4);
      },
      "offsets must rise to at most keys.size(0) = 40");
  expect_error([&] { invariant_indexer(b.q, b.keys, b.offsets, b.weights, 0); },
               "k must be in [1, 16384]");
}

}  // namespace
}  // namespace samebits
