// The batched indexer on CUDA (label "gpu"; skipped without a GPU): the exact algorithm gives the
// twin's bits, and both algorithms give every item's bits alone equal to its bits in a batch of 31.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "harness/device_choice.h"
#include "kernels/indexer/binding.h"
#include "tests/kernels/indexer_inputs.h"
#include "tests/kernels/topk_oracle.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace invariant_indexer_gpu_test_file {}
using namespace invariant_indexer_gpu_test_file;
namespace invariant_indexer_gpu_test_file {

#define SAMEBITS_REQUIRE_CUDA() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU visible"

::testing::AssertionResult same_scores(const at::Tensor& expected, const at::Tensor& got) {
  const at::Tensor e = expected.cpu().contiguous(), g = got.cpu().contiguous();
  const at::Tensor differ = e.view(at::kInt).ne(g.view(at::kInt));
  const std::int64_t mismatched = differ.sum().item<std::int64_t>();
  if (mismatched == 0) return ::testing::AssertionSuccess();
  const std::int64_t i = differ.nonzero().view(-1)[0].item<std::int64_t>();
  return ::testing::AssertionFailure()
         << mismatched << " of " << e.numel() << " scores differ; first at " << i << ": expected "
         << e[i].item<float>() << " (0x" << std::hex << e.view(at::kInt)[i].item<int>() << "), got "
         << std::dec << g[i].item<float>() << " (0x" << std::hex << g.view(at::kInt)[i].item<int>()
         << ")";
}

struct IndexerCase {
  at::ScalarType dtype;
  std::int64_t heads, head_dim, k;
  std::vector<std::int64_t> lengths;
  double zero_keys;
};

std::string case_name(const ::testing::TestParamInfo<IndexerCase>& info) {
  const IndexerCase& c = info.param;
  return std::string(c.dtype == at::kBFloat16 ? "Bf16" : "Fp8") + "_H" + std::to_string(c.heads) +
         "_D" + std::to_string(c.head_dim) + "_K" + std::to_string(c.k) + "_B" +
         std::to_string(c.lengths.size()) + (c.zero_keys > 0 ? "_ZeroKeys" : "");
}

class CudaIndexerTest : public ::testing::TestWithParam<IndexerCase> {};

TEST_P(CudaIndexerTest, MatchesTwin) {
  SAMEBITS_REQUIRE_CUDA();
  const IndexerCase& c = GetParam();
  const IndexerBatch b =
      indexer_batch(c.lengths, c.heads, c.head_dim, c.dtype, false, 21, c.zero_keys);
  const IndexerOutputs twin = run_indexer(b, c.k, false, kernels::IndexerAlgorithm::exact);
  const IndexerOutputs cuda = run_indexer(b, c.k, true, kernels::IndexerAlgorithm::exact);
  EXPECT_TRUE(same_scores(twin.scores, cuda.scores));
  EXPECT_TRUE(same_selection(twin.top_values, twin.top_indices, cuda.top_values, cuda.top_indices));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, CudaIndexerTest,
    ::testing::Values(IndexerCase{at::kBFloat16, 4, 8, 5, {1, 63, 64, 65, 200}, 0.0},
                      IndexerCase{at::kBFloat16, 64, 128, 2048, {4096, 2500, 8192}, 0.0},
                      IndexerCase{at::kBFloat16, 64, 128, 2048, {4096, 5000}, 0.5},
                      IndexerCase{at::kBFloat16, 16, 64, 16, {100, 3000}, 0.3},
                      IndexerCase{at::kBFloat16, 32, 256, 100, {700}, 0.0},
                      IndexerCase{at::kFloat8_e4m3fn, 64, 128, 2048, {4096, 6000}, 0.0},
                      IndexerCase{at::kFloat8_e4m3fn, 8, 32, 32, {10, 1000}, 0.5},
                      // items past kSplitSelectAbove: the top-k runs split_select
                      IndexerCase{at::kBFloat16, 8, 64, 2048, {131072, 70001, 100}, 0.3}),
    case_name);

// Each of 31 items of lengths 4096..8192 computed in one call gives the bits of the same item
// computed alone (bf16 and fp8, k = 2048, some keys zero so scores tie), for both algorithms.
class CudaIndexerBatchTest
    : public ::testing::TestWithParam<std::tuple<at::ScalarType, kernels::IndexerAlgorithm>> {};

TEST_P(CudaIndexerBatchTest, ItemAloneEqualsItemInBatch) {
  SAMEBITS_REQUIRE_CUDA();
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(29);
  const at::Tensor lengths =
      at::randint(4096, 8193, {31}, gen, at::TensorOptions().dtype(at::kLong));
  std::vector<std::int64_t> ls(lengths.data_ptr<std::int64_t>(),
                               lengths.data_ptr<std::int64_t>() + 31);
  const auto [dtype, algorithm] = GetParam();
  const IndexerBatch batch = indexer_batch(ls, 64, 128, dtype, false, 31, 0.2);
  const IndexerOutputs together = run_indexer(batch, 2048, true, algorithm);
  for (std::int64_t item : {0, 7, 30}) {
    const std::int64_t start = batch.offsets[item].item<std::int64_t>(), length = ls[item];
    IndexerBatch alone = batch;
    alone.q = batch.q.narrow(0, item, 1);
    alone.keys = batch.keys.narrow(0, start, length);
    alone.offsets = at::tensor({std::int64_t{0}, length}, at::kLong);
    alone.weights = batch.weights.narrow(0, item, 1);
    if (batch.q_scale) alone.q_scale = batch.q_scale->narrow(0, item, 1);
    if (batch.k_scale) alone.k_scale = batch.k_scale->narrow(0, item, 1);
    alone.max_length = length;
    const IndexerOutputs single = run_indexer(alone, 2048, true, algorithm);
    EXPECT_TRUE(same_scores(single.scores, together.scores.narrow(0, start, length)))
        << "item " << item;
    EXPECT_TRUE(same_selection(single.top_values[0], single.top_indices[0],
                               together.top_values[item], together.top_indices[item]))
        << "item " << item;
  }
}
INSTANTIATE_TEST_SUITE_P(
    Dtypes, CudaIndexerBatchTest,
    ::testing::Combine(::testing::Values(at::kBFloat16, at::kFloat8_e4m3fn),
                       ::testing::Values(kernels::IndexerAlgorithm::tensor_cores,
                                         kernels::IndexerAlgorithm::exact)),
    [](const auto& info) {
      return std::string(std::get<0>(info.param) == at::kBFloat16 ? "Bf16_" : "Fp8_") +
             kernels::indexer_algorithm_name(std::get<1>(info.param));
    });

}  // namespace invariant_indexer_gpu_test_file
}  // namespace samebits
