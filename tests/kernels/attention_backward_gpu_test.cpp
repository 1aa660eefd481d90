// The attention backward's exact CUDA path (label "gpu"; skipped without a GPU): the twin's bits,
// run to run and on another stream, and a sequence's gradients the same bits in any batch.
#include <gtest/gtest.h>

#include <string>

#include "harness/device_choice.h"
#include "tests/kernels/attention_backward_inputs.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace attention_backward_gpu_test_file {}
using namespace attention_backward_gpu_test_file;
namespace attention_backward_gpu_test_file {

#define SAMEBITS_REQUIRE_CUDA() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU visible"

// run_attention_backward's other_stream and cuda_forward, named.
constexpr bool kSameStream = false, kOtherStream = true, kCudaForward = true;

::testing::AssertionResult same_gradients(const GradientResult& want, const GradientResult& got) {
  for (const auto& [name, a, b] :
       {std::make_tuple("dq", want.dq, got.dq), std::make_tuple("dk", want.dk, got.dk),
        std::make_tuple("dv", want.dv, got.dv)}) {
    if (const auto r = same_bits(a, b); !r)
      return ::testing::AssertionFailure() << name << ": " << r.message();
  }
  return ::testing::AssertionSuccess();
}

struct TwinCase {
  at::ScalarType dtype;
  std::int64_t head_dim, group;
  bool causal;
};

class CudaAttentionBackwardTwin : public ::testing::TestWithParam<TwinCase> {};

// Lengths 1, 9, 10, 63..65, 127..129 and 300, prefill and chunks, in one batch: the twin's bits;
// again (run to run) and on a stream from the pool.
TEST_P(CudaAttentionBackwardTwin, MatchesTwinRunToRunAndOnAnotherStream) {
  SAMEBITS_REQUIRE_CUDA();
  const TwinCase& c = GetParam();
  const AttentionShape s{c.dtype, 8, 8 / c.group, c.head_dim, c.causal};
  const std::vector<SequenceCall> calls{{1, 1, 1, 1},       {2, 9, 9, 9},       {3, 10, 10, 10},
                                        {4, 63, 63, 63},    {5, 64, 64, 64},    {6, 65, 65, 65},
                                        {7, 127, 127, 127}, {8, 128, 128, 128}, {9, 129, 129, 129},
                                        {10, 300, 300, 70}, {11, 300, 200, 1}};
  // Both backwards read the exact CUDA forward's out and lse (the twin's bits, tested elsewhere).
  const GradientResult twin = run_attention_backward(s, calls, false, kSameStream, kCudaForward);
  const GradientResult cuda = run_attention_backward(s, calls, true, kSameStream, kCudaForward);
  EXPECT_TRUE(same_gradients(twin, cuda));
  EXPECT_TRUE(
      same_gradients(cuda, run_attention_backward(s, calls, true, kSameStream, kCudaForward)));
  EXPECT_TRUE(
      same_gradients(cuda, run_attention_backward(s, calls, true, kOtherStream, kCudaForward)));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, CudaAttentionBackwardTwin,
    ::testing::Values(TwinCase{at::kBFloat16, 64, 1, true}, TwinCase{at::kBFloat16, 128, 4, true},
                      TwinCase{at::kBFloat16, 128, 8, false}, TwinCase{at::kHalf, 64, 8, true},
                      TwinCase{at::kHalf, 128, 1, false}, TwinCase{at::kHalf, 256, 4, true},
                      TwinCase{at::kBFloat16, 256, 1, false}),
    [](const ::testing::TestParamInfo<TwinCase>& info) {
      const TwinCase& c = info.param;
      return std::string(c.dtype == at::kBFloat16 ? "Bf16" : "F16") + "_D" +
             std::to_string(c.head_dim) + "_G" + std::to_string(c.group) +
             (c.causal ? "_Causal" : "_Full");
    });

// On the GPU alone: a sequence of 1025 alone and beside neighbours of 4095, 4096, 4097, 9, 10
// and 127..129 tokens, first, between and last, GQA 1, 4 and 8, causal and not: the same bits.
TEST(CudaAttentionBackward, ASequencesGradientsAloneAndInBatches) {
  SAMEBITS_REQUIRE_CUDA();
  for (const std::int64_t group : {1, 4, 8}) {
    for (const bool causal : {true, false}) {
      const AttentionShape s{at::kBFloat16, 8, 8 / group, 128, causal};
      const SequenceCall mine{77, 1025, 1025, 1025};
      const GradientResult alone =
          run_attention_backward(s, {mine}, true, kSameStream, kCudaForward);
      const auto n = [](std::uint64_t seed, std::int64_t len) {
        return SequenceCall{seed, len, len, len};
      };
      const std::vector<std::vector<SequenceCall>> batches{
          {n(1, 4095), mine, n(2, 9)},
          {mine, n(3, 4096), n(4, 10), n(5, 127)},
          {n(6, 128), n(7, 129), n(8, 4097), mine}};
      for (std::size_t b = 0; b < batches.size(); ++b) {
        std::size_t at = 0;
        while (batches[b][at].seed != mine.seed) ++at;
        const GradientResult in =
            run_attention_backward(s, batches[b], true, kSameStream, kCudaForward);
        const std::string where = "group " + std::to_string(group) +
                                  (causal ? " causal" : " full") + " batch " + std::to_string(b);
        EXPECT_TRUE(same_bits(alone.dq, in.q_rows(in.dq, at))) << where;
        EXPECT_TRUE(same_bits(alone.dk, in.key_rows(in.dk, at))) << where;
        EXPECT_TRUE(same_bits(alone.dv, in.key_rows(in.dv, at))) << where;
      }
    }
  }
}

}  // namespace attention_backward_gpu_test_file
}  // namespace samebits
