// The indexer's CPU twin: exact inputs give float64's scores bit for bit (bf16 and fp8 with
// scales), normal inputs stay inside each algorithm's bound, fp8 decoding matches ATen's, errors.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "kernels/indexer/binding.h"
#include "kernels/indexer/invariant_indexer_order.h"
#include "tests/kernels/expect_error.h"
#include "tests/kernels/indexer_bound_check.h"
#include "tests/kernels/indexer_inputs.h"
#include "tests/kernels/topk_oracle.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace invariant_indexer_test_file {}
using namespace invariant_indexer_test_file;
namespace invariant_indexer_test_file {

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

// Normal inputs: each algorithm's twin within indexer_error_bound.h's bound of float64 (exact:
// the fma chain, the GPU's bits; tensor_cores: float64 dots rounded once), rounding somewhere.
class TwinReference : public ::testing::TestWithParam<kernels::IndexerAlgorithm> {};

TEST_P(TwinReference, WithinStatedBound) {
  const IndexerBatch b = indexer_batch({300, 77}, 64, 128, at::kBFloat16, false, 9);
  const IndexerOutputs out = invariant_indexer(b.q, b.keys, b.offsets, b.weights, 16, -1,
                                               std::nullopt, std::nullopt, false, GetParam());
  for (std::int64_t item = 0; item < 2; ++item) {
    const at::Tensor scores =
        out.scores.narrow(0, b.offsets[item].item<std::int64_t>(), item == 0 ? 300 : 77);
    double worst = 0;
    EXPECT_TRUE(scores_within_bound(
        scores, b, item, indexer_bound::dot_arithmetic(GetParam(), /*cpu_twin=*/true), &worst));
    EXPECT_GT(worst, 0.0) << "normal inputs should round somewhere";
  }
}
INSTANTIATE_TEST_SUITE_P(Algorithms, TwinReference,
                         ::testing::Values(kernels::IndexerAlgorithm::exact,
                                           kernels::IndexerAlgorithm::tensor_cores),
                         [](const auto& info) {
                           return std::string(kernels::indexer_algorithm_name(info.param));
                         });

// Controls for the checks above and the GPU tests: scores moved by twice their bound at one key
// fail the bound check, and a top-k with two separated positions swapped fails the agreement.
TEST(IndexerBoundCheck, FailsWhereItShould) {
  const IndexerBatch b = indexer_batch({300}, 64, 128, at::kBFloat16, false, 9);
  const auto a = indexer_bound::DotArithmetic::float64;
  const at::Tensor exact = indexer_scores_float64(b, 0).to(at::kFloat);
  ASSERT_TRUE(scores_within_bound(exact, b, 0, a));
  at::Tensor moved = exact.clone();
  moved[17] += 2 * indexer_score_bounds(b, 0, a)[17].item<double>();
  EXPECT_FALSE(scores_within_bound(moved, b, 0, a));
  const at::Tensor order = at::argsort(exact, true, 0, true).narrow(0, 0, 16).clone();
  std::int64_t checked = 0;
  ASSERT_TRUE(separated_positions_agree(exact, order, 1e-9, &checked));
  EXPECT_GE(checked, 8);
  at::Tensor swapped = order.clone();
  swapped[0] = order[1];
  swapped[1] = order[0];
  EXPECT_FALSE(separated_positions_agree(exact, swapped, 1e-9));
}

// The algorithm argument reaches the twin: on normal inputs the float64 dots and the fma chain
// round differently somewhere; on exact inputs they agree bit for bit.
TEST(TwinAlgorithms, DifferOnNormalInputsAgreeOnExactOnes) {
  for (const bool exact_inputs : {false, true}) {
    const IndexerBatch b = indexer_batch({500}, 64, 128, at::kBFloat16, exact_inputs, 13);
    const auto run = [&](kernels::IndexerAlgorithm a) {
      return invariant_indexer(b.q, b.keys, b.offsets, b.weights, 16, -1, std::nullopt,
                               std::nullopt, false, a)
          .scores;
    };
    const bool same = at::equal(run(kernels::IndexerAlgorithm::exact).view(at::kInt),
                                run(kernels::IndexerAlgorithm::tensor_cores).view(at::kInt));
    EXPECT_EQ(same, exact_inputs) << (exact_inputs ? "exact" : "normal") << " inputs";
  }
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
  expect_error([&] { parse_indexer_algorithm("fast"); },
               "algorithm must be \"tensor_cores\" or \"exact\", got \"fast\"");
}

}  // namespace invariant_indexer_test_file
}  // namespace samebits
