// The invariant attention on CUDA (label "gpu"; skipped without a GPU): the twin's bits for out and
// lse over dtypes, head dims, GQA groups and lengths at tile and split borders, and on the GPU
// itself each row's bits alone, in a batch, chunked, in decode and over a paged cache.
#include <gtest/gtest.h>

#include <string>

#include "harness/device_choice.h"
#include "tests/kernels/attention_inputs.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace invariant_attention_gpu_test_file {}
using namespace invariant_attention_gpu_test_file;
namespace invariant_attention_gpu_test_file {

#define SAMEBITS_REQUIRE_CUDA() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU visible"

struct TwinCase {
  at::ScalarType dtype;
  std::int64_t head_dim, group;
  bool causal;
  std::int64_t page_size;
};

std::string twin_name(const ::testing::TestParamInfo<TwinCase>& info) {
  const TwinCase& c = info.param;
  return std::string(c.dtype == at::kBFloat16 ? "Bf16" : "F16") + "_D" +
         std::to_string(c.head_dim) + "_G" + std::to_string(c.group) +
         (c.causal ? "_Causal" : "_Full") + "_Page" + std::to_string(c.page_size);
}

class CudaAttentionTwin : public ::testing::TestWithParam<TwinCase> {};

// Lengths 1, 127..129, 1023..1025 and 2500, prefill and a chunk, in one batch.
TEST_P(CudaAttentionTwin, MatchesTwin) {
  SAMEBITS_REQUIRE_CUDA();
  const TwinCase& c = GetParam();
  const AttentionShape s{c.dtype, 8, 8 / c.group, c.head_dim, c.causal};
  const std::vector<SequenceCall> calls{
      {1, 1, 1, 1},        {2, 127, 127, 127}, {3, 128, 128, 128},    {4, 129, 129, 129},
      {5, 1023, 1023, 64}, {6, 1024, 1024, 1}, {7, 1025, 1025, 1025}, {8, 2500, 2500, 333}};
  const AttentionResult twin = run_attention(s, calls, false, c.page_size);
  const AttentionResult cuda = run_attention(s, calls, true, c.page_size);
  EXPECT_TRUE(same_bits(twin.out, cuda.out));
  EXPECT_TRUE(same_bits(twin.lse, cuda.lse));
  // Each split on its own warp, merged by a second launch: the same bits.
  const AttentionResult split = run_attention(s, calls, true, c.page_size, 1, true);
  EXPECT_TRUE(same_bits(twin.out, split.out));
  EXPECT_TRUE(same_bits(twin.lse, split.lse));
}

INSTANTIATE_TEST_SUITE_P(Shapes, CudaAttentionTwin,
                         ::testing::Values(TwinCase{at::kBFloat16, 128, 1, true, 0},
                                           TwinCase{at::kBFloat16, 128, 4, true, 16},
                                           TwinCase{at::kHalf, 64, 8, true, 0},
                                           TwinCase{at::kHalf, 256, 1, false, 0},
                                           TwinCase{at::kBFloat16, 64, 1, false, 1}),
                         twin_name);

// On the GPU alone (no twin): one sequence alone, in batches of 8 and 64 beside neighbours of
// other lengths, chunked at 16, 64 and 333, decoded token by token, over a paged cache: the same
// bits.
TEST(CudaAttention, ARowsBitsAloneInABatchChunkedAndPaged) {
  SAMEBITS_REQUIRE_CUDA();
  const AttentionShape s{at::kBFloat16, 32, 8, 128, true};
  const std::int64_t length = 4097;
  const SequenceCall mine{77, length, length, length};
  const AttentionResult alone = run_attention(s, {mine}, true);
  for (const std::int64_t batch : {8, 64}) {
    std::vector<SequenceCall> calls;
    for (std::int64_t i = 0; i < batch; ++i) {
      const std::int64_t len = 1 + (i * 977) % 5000;
      calls.push_back({static_cast<std::uint64_t>(100 + i), len, len, i % 3 == 0 ? len : 1});
    }
    calls[batch / 2] = mine;
    const AttentionResult in_batch =
        run_attention(s, calls, true, batch == 64 ? 16 : 0, 1, /*split_warps=*/batch == 8);
    EXPECT_TRUE(same_bits(alone.rows(0), in_batch.rows(batch / 2))) << "batch " << batch;
    EXPECT_TRUE(same_bits(alone.lse_rows(0), in_batch.lse_rows(batch / 2))) << "batch " << batch;
  }
  // Chunked prefill of a shorter sequence (crossing two split borders), then decode token by
  // token over the last 40 positions after a prefill of the rest.
  const std::int64_t shorter = 2100;
  const AttentionResult whole = run_attention(s, {{78, shorter, shorter, shorter}}, true);
  for (const std::int64_t chunk : {16, 64, 333}) {
    std::vector<SequenceCall> calls;
    for (std::int64_t end = chunk;; end = std::min(end + chunk, shorter)) {
      const std::int64_t begin = calls.empty() ? 0 : calls.back().kv_len;
      calls.push_back({78, shorter, end, end - begin});
      if (end == shorter) break;
    }
    const AttentionResult chunked = run_attention(s, calls, true, chunk == 16 ? 64 : 0);
    EXPECT_TRUE(same_bits(whole.out, chunked.out)) << "chunk " << chunk;
    EXPECT_TRUE(same_bits(whole.lse, chunked.lse)) << "chunk " << chunk;
  }
  std::vector<SequenceCall> decode{{78, shorter, shorter - 40, shorter - 40}};
  for (std::int64_t t = shorter - 39; t <= shorter; ++t) decode.push_back({78, shorter, t, 1});
  const AttentionResult decoded = run_attention(s, decode, true, 16, 1, /*split_warps=*/true);
  EXPECT_TRUE(same_bits(whole.out, decoded.out));
  EXPECT_TRUE(same_bits(whole.lse, decoded.lse));
}

}  // namespace invariant_attention_gpu_test_file
}  // namespace samebits
