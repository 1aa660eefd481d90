// The invariant attention on tensor cores (label "gpu"; skipped without a GPU): within a bound
// derived from the dtype of a float64 reference, and each row's bits alone, in batches beside
// neighbours of other lengths, chunked, in decode, paged, split over blocks and on another stream.
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "harness/device_choice.h"
#include "kernels/attention/attention_tensor_cores.h"
#include "kernels/attention/binding.h"
#include "tests/kernels/attention_inputs.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace attention_tensor_cores_gpu_test_file {}
using namespace attention_tensor_cores_gpu_test_file;
namespace attention_tensor_cores_gpu_test_file {

#define SAMEBITS_REQUIRE_CUDA() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU visible"

constexpr auto kTensorCores = kernels::AttentionAlgorithm::tensor_cores;

// split: each split on its own blocks, merged by a second launch; border: a block's merged
// partials in a global workspace rather than shared memory. Neither may change a bit.
AttentionResult on_tensor_cores(const AttentionShape& s, const std::vector<SequenceCall>& calls,
                                std::int64_t page_size = 0, bool split = false, bool border = false,
                                bool warpgroup_mma = true) {
  return run_attention(s, calls, true, page_size, 1, split, kTensorCores, border, warpgroup_mma);
}

// The float64 reference of every call's rows: out [rows, H, d] and lse [rows, H].
struct Reference {
  at::Tensor out, lse;
};

Reference float64_reference(const AttentionShape& s, const std::vector<SequenceCall>& calls,
                            float scale) {
  std::vector<at::Tensor> outs, lses;
  const std::int64_t group = s.heads / s.kv_heads;
  for (const auto& c : calls) {
    const SequenceData d = sequence_data(s, c.seed, c.length);
    const at::Tensor q = d.q.slice(0, c.kv_len - c.q_len, c.kv_len).to(at::kDouble).transpose(0, 1);
    const at::Tensor k = d.k.slice(0, 0, c.kv_len).to(at::kDouble).repeat_interleave(group, 1);
    const at::Tensor v = d.v.slice(0, 0, c.kv_len).to(at::kDouble).repeat_interleave(group, 1);
    at::Tensor scores = at::matmul(q, k.permute({1, 2, 0})) * static_cast<double>(scale);
    if (s.causal) {  // query i sits at kv_len - q_len + i and sees keys up to it
      const at::Tensor i = at::arange(c.q_len, at::kLong).unsqueeze(1) + (c.kv_len - c.q_len);
      const at::Tensor t = at::arange(c.kv_len, at::kLong).unsqueeze(0);
      scores = scores.masked_fill(t.gt(i), -INFINITY);
    }
    const at::Tensor lse = at::logsumexp(scores, -1);  // [H, q_len]
    const at::Tensor out = at::matmul(at::exp(scores - lse.unsqueeze(-1)), v.transpose(0, 1));
    outs.push_back(out.transpose(0, 1));
    lses.push_back(lse.transpose(0, 1));
  }
  return {at::cat(outs), at::cat(lses)};
}

// |out - ref| <= 2^-p (|ref| + max|v|) elementwise: p = 8 for bfloat16 and 11 for float16, twice
// the two roundings the kernel adds to float32 arithmetic (the output's, and P's before the PV
// product: |sum p v / l| moves by at most half an ulp of p times max|v|). lse (float32 from
// float32 sums of unrounded p) within 1e-5 (1 + |lse|).
::testing::AssertionResult within_bound(const AttentionShape& s, const AttentionResult& got,
                                        const Reference& ref, double max_v) {
  const double eps = s.dtype == at::kBFloat16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11);
  const at::Tensor out = got.out.to(at::kDouble);
  const at::Tensor err = (out - ref.out).abs();
  const at::Tensor bound = eps * (ref.out.abs() + max_v);
  const at::Tensor over = err.gt(bound) | out.isnan();
  if (over.any().item<bool>()) {
    const std::int64_t i = over.reshape(-1).nonzero()[0].item<std::int64_t>();
    return ::testing::AssertionFailure()
           << over.sum().item<std::int64_t>() << " of " << out.numel()
           << " outputs past the bound; first at flat index " << i << ": "
           << out.reshape(-1)[i].item<double>() << " vs " << ref.out.reshape(-1)[i].item<double>()
           << " (bound " << bound.reshape(-1)[i].item<double>() << ")";
  }
  const at::Tensor lse = got.lse.to(at::kDouble);
  const at::Tensor lse_over = (lse - ref.lse).abs().gt(1e-5 * (1.0 + ref.lse.abs()));
  if (lse_over.any().item<bool>()) {
    return ::testing::AssertionFailure()
           << lse_over.sum().item<std::int64_t>() << " lse values past 1e-5 (1 + |lse|)";
  }
  return ::testing::AssertionSuccess();
}

struct BoundCase {
  at::ScalarType dtype;
  std::int64_t head_dim, group;
  bool causal;
  std::int64_t page_size;
  double key_rise = 0.0;  // AttentionShape::key_rise
};

std::string bound_name(const ::testing::TestParamInfo<BoundCase>& info) {
  const BoundCase& c = info.param;
  return std::string(c.dtype == at::kBFloat16 ? "Bf16" : "F16") + "_D" +
         std::to_string(c.head_dim) + "_G" + std::to_string(c.group) +
         (c.causal ? "_Causal" : "_Full") + "_Page" + std::to_string(c.page_size) +
         (c.key_rise > 0.0 ? "_RisingKeys" : "");
}

class TensorCoreAttentionBound : public ::testing::TestWithParam<BoundCase> {};

// Lengths 1, 127..129 (tile borders), a 64-token chunk and a decode step over 1000 keys, 2047 and
// 2049 (a split border) and 4095 and 4097 (another) in one batch; split over blocks, with the
// border workspace, or with the prefill blocks on mma.sync (with and without it), the same bits.
TEST_P(TensorCoreAttentionBound, WithinTheBoundOfAFloat64Reference) {
  SAMEBITS_REQUIRE_CUDA();
  const BoundCase& c = GetParam();
  const std::int64_t heads = std::max<std::int64_t>(8, c.group);
  const AttentionShape s{c.dtype, heads, heads / c.group, c.head_dim, c.causal, c.key_rise};
  const std::vector<SequenceCall> calls{
      {1, 1, 1, 1},        {2, 127, 127, 127}, {3, 128, 128, 128},    {4, 129, 129, 129},
      {5, 1000, 1000, 64}, {6, 1000, 1000, 1}, {7, 4095, 4095, 4095}, {8, 4097, 4097, 300}};
  const AttentionResult got = on_tensor_cores(s, calls, c.page_size);
  const float scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
  const Reference ref = float64_reference(s, calls, scale);
  double max_v = 0.0;
  for (const auto& call : calls) {
    max_v = std::max(max_v, sequence_data(s, call.seed, call.length).v.abs().max().item<double>());
  }
  EXPECT_TRUE(within_bound(s, got, ref, max_v));
  // The negative control: a 2% error in the scale is past the bound.
  const Reference off = float64_reference(s, calls, scale * 1.02f);
  EXPECT_FALSE(within_bound(s, got, off, max_v));
  const AttentionResult split = on_tensor_cores(s, calls, c.page_size, /*split=*/true);
  EXPECT_TRUE(same_bits(got.out, split.out));
  EXPECT_TRUE(same_bits(got.lse, split.lse));
  // (a border workspace given to the wgmma blocks goes unused: they keep it in shared memory)
  const AttentionResult border = on_tensor_cores(s, calls, c.page_size, false, /*border=*/true);
  EXPECT_TRUE(same_bits(got.out, border.out));
  EXPECT_TRUE(same_bits(got.lse, border.lse));
  const AttentionResult sync_border = on_tensor_cores(s, calls, c.page_size, false, true, false);
  EXPECT_TRUE(same_bits(got.out, sync_border.out)) << "mma.sync prefill, border workspace";
  EXPECT_TRUE(same_bits(got.lse, sync_border.lse)) << "mma.sync prefill, border workspace";
  // Three persistent wgmma blocks taking every turn (tiles of one turn after another's in the
  // same stages, idle warpgroups and keyless turns among them): the same bits.
  const AttentionResult few = run_attention(s, calls, true, c.page_size, 1, false, kTensorCores,
                                            false, true, /*persistent_blocks=*/3);
  EXPECT_TRUE(same_bits(got.out, few.out)) << "three persistent blocks";
  EXPECT_TRUE(same_bits(got.lse, few.lse)) << "three persistent blocks";
  const AttentionResult counted = run_attention(s, calls, true, c.page_size, 1, false, kTensorCores,
                                                false, true, 3, /*turn_counter=*/true);
  EXPECT_TRUE(same_bits(got.out, counted.out)) << "three persistent blocks, turns by a counter";
  EXPECT_TRUE(same_bits(got.lse, counted.lse)) << "three persistent blocks, turns by a counter";
  // (the default launch here is persistent too, a block per SM in the static order: no counter)
  int device = 0, sms = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), cudaSuccess);
  const AttentionResult every_sm =
      run_attention(s, calls, true, c.page_size, 1, false, kTensorCores, false, true, sms, true);
  EXPECT_TRUE(same_bits(got.out, every_sm.out)) << "a block per SM, turns by a counter";
  EXPECT_TRUE(same_bits(got.lse, every_sm.lse)) << "a block per SM, turns by a counter";
  // Rows of out 4-byte but not 16-byte aligned: the wgmma blocks store 4-byte pairs rather than
  // whole chunks through their stage (out_stage.cuh): the same bits.
  const AttentionResult shifted = run_attention(s, calls, true, c.page_size, 1, false, kTensorCores,
                                                false, true, 0, false, /*out_shift=*/2);
  EXPECT_TRUE(same_bits(got.out, shifted.out)) << "out rows not 16-byte aligned";
  EXPECT_TRUE(same_bits(got.lse, shifted.lse)) << "out rows not 16-byte aligned";
  // Prefill blocks on mma.sync rather than wgmma (Hopper): the same bits.
  const AttentionResult on_sync = on_tensor_cores(s, calls, c.page_size, false, false, false);
  EXPECT_TRUE(same_bits(got.out, on_sync.out)) << "mma.sync prefill";
  EXPECT_TRUE(same_bits(got.lse, on_sync.lse)) << "mma.sync prefill";
}

INSTANTIATE_TEST_SUITE_P(Shapes, TensorCoreAttentionBound,
                         ::testing::Values(BoundCase{at::kBFloat16, 128, 1, true, 0},
                                           BoundCase{at::kBFloat16, 128, 4, true, 16},
                                           BoundCase{at::kHalf, 128, 8, true, 0},
                                           BoundCase{at::kHalf, 64, 1, false, 0},
                                           BoundCase{at::kBFloat16, 64, 4, false, 1},
                                           // (a row max that climbs past the order's slack
                                           // tile after tile: rescales, P up to 2^8)
                                           BoundCase{at::kBFloat16, 128, 4, true, 0, 64.0},
                                           BoundCase{at::kHalf, 64, 1, false, 16, 64.0},
                                           // (groups of 16 and 32 heads: more heads per block
                                           // row group than rows between a copying thread's
                                           // query rows, so each row's address is its own)
                                           BoundCase{at::kBFloat16, 128, 16, true, 0},
                                           BoundCase{at::kHalf, 64, 32, true, 64}),
                         bound_name);

struct InvarianceCase {
  std::int64_t group;
  double key_rise;                 // AttentionShape::key_rise
  std::int64_t length = 4097;      // the sequence under test
  std::int64_t neighbours = 9000;  // neighbours' lengths run up to this (longer than `length`)
  std::int64_t head_dim = 128;
};
class TensorCoreAttentionInvariance : public ::testing::TestWithParam<InvarianceCase> {};

// One 4097-token sequence (300 in the Small cases; head dim 128, or 64 in one) alone; in batches of
// 8 and 64 beside neighbours whose lengths cross tile and split borders and set the batch's longest
// query and key; chunked at 16, 64 and 333; decoded token by token; over paged caches; split over
// blocks; on a second stream; with the prefill blocks on mma.sync (on Hopper they run on wgmma).
TEST_P(TensorCoreAttentionInvariance, ARowsBitsAreItsSequencesOwn) {
  SAMEBITS_REQUIRE_CUDA();
  const InvarianceCase& c = GetParam();
  const std::int64_t group = c.group;
  const AttentionShape s{at::kBFloat16, 2 * group, 2, c.head_dim, true, c.key_rise};
  const std::int64_t length = c.length;
  const SequenceCall mine{77, length, length, length};
  const AttentionResult alone = on_tensor_cores(s, {mine});
  for (const std::int64_t batch : {8, 64}) {
    std::vector<SequenceCall> calls;
    for (std::int64_t i = 0; i < batch; ++i) {
      const std::int64_t len = 1 + (i * 977) % c.neighbours;  // some longer than mine
      calls.push_back({static_cast<std::uint64_t>(100 + i), len, len, i % 3 == 0 ? len : 1});
    }
    calls[batch / 2] = mine;
    for (const bool split : {false, true}) {
      const AttentionResult in_batch =
          on_tensor_cores(s, calls, batch == 64 ? 16 : 0, split, /*border=*/batch == 8);
      EXPECT_TRUE(same_bits(alone.rows(0), in_batch.rows(batch / 2)))
          << "batch " << batch << (split ? ", split" : "");
      EXPECT_TRUE(same_bits(alone.lse_rows(0), in_batch.lse_rows(batch / 2)))
          << "batch " << batch << (split ? ", split" : "");
    }
  }
  for (const std::int64_t chunk : {16, 64, 333}) {
    std::vector<SequenceCall> calls;
    for (std::int64_t end = std::min(chunk, length);; end = std::min(end + chunk, length)) {
      const std::int64_t begin = calls.empty() ? 0 : calls.back().kv_len;
      calls.push_back({77, length, end, end - begin});
      if (end == length) break;
    }
    const AttentionResult chunked = on_tensor_cores(s, calls, chunk == 16 ? 64 : 0);
    EXPECT_TRUE(same_bits(alone.out, chunked.out)) << "chunk " << chunk;
    EXPECT_TRUE(same_bits(alone.lse, chunked.lse)) << "chunk " << chunk;
  }
  std::vector<SequenceCall> decode{{77, length, length - 40, length - 40}};
  for (std::int64_t t = length - 39; t <= length; ++t) decode.push_back({77, length, t, 1});
  for (const bool split : {false, true}) {
    const AttentionResult decoded = on_tensor_cores(s, decode, 16, split);
    EXPECT_TRUE(same_bits(alone.out, decoded.out)) << (split ? "split" : "whole");
    EXPECT_TRUE(same_bits(alone.lse, decoded.lse)) << (split ? "split" : "whole");
    // Decode alone (one query per sequence: the kernel's decode shape) gives those rows' bits.
    const std::vector<SequenceCall> steps(decode.begin() + 1, decode.end());
    const AttentionResult stepped = on_tensor_cores(s, steps, 0, split);
    EXPECT_TRUE(same_bits(alone.out.slice(0, length - 40), stepped.out))
        << (split ? "split" : "whole");
    EXPECT_TRUE(same_bits(alone.lse.slice(0, length - 40), stepped.lse))
        << (split ? "split" : "whole");
    // The same steps four times over: more decode blocks than an H100 has SMs, so blocks share
    // SMs and start in another order.
    std::vector<SequenceCall> crowd;
    for (int copy = 0; copy < 4; ++copy) crowd.insert(crowd.end(), steps.begin(), steps.end());
    const AttentionResult crowded = on_tensor_cores(s, crowd, 0, split);
    EXPECT_TRUE(same_bits(stepped.out, crowded.out.slice(0, 120, 160)))
        << "crowded decode" << (split ? ", split" : "");
    EXPECT_TRUE(same_bits(stepped.lse, crowded.lse.slice(0, 120, 160)))
        << "crowded decode" << (split ? ", split" : "");
  }
  {
    const c10::cuda::CUDAStream other = c10::cuda::getStreamFromPool();
    const c10::cuda::CUDAStreamGuard guard(other);
    const AttentionResult again = on_tensor_cores(s, {mine}, 32);
    EXPECT_TRUE(same_bits(alone.out, again.out)) << "second stream";
  }
  // Prefill blocks on mma.sync rather than wgmma (Hopper): the same bits, whole and split.
  for (const bool split : {false, true}) {
    const AttentionResult on_sync = on_tensor_cores(s, {mine}, 0, split, false, false);
    EXPECT_TRUE(same_bits(alone.out, on_sync.out))
        << "mma.sync prefill" << (split ? ", split" : "");
    EXPECT_TRUE(same_bits(alone.lse, on_sync.lse))
        << "mma.sync prefill" << (split ? ", split" : "");
  }
  // The negative control: the exact path's bits are not the tensor cores' (same_bits can fail).
  const AttentionResult exact = run_attention(s, {mine}, true);
  EXPECT_FALSE(same_bits(alone.out, exact.out));
}

// The Small cases are the same checks on a sequence of 300 tokens beside neighbours of up to 700:
// sized for compute-sanitizer (racecheck takes minutes per full-size case).
INSTANTIATE_TEST_SUITE_P(Groups, TensorCoreAttentionInvariance,
                         ::testing::Values(InvarianceCase{1, 0.0}, InvarianceCase{4, 0.0},
                                           InvarianceCase{8, 0.0}, InvarianceCase{4, 64.0},
                                           InvarianceCase{1, 0.0, 300, 700},
                                           InvarianceCase{4, 0.0, 300, 700},
                                           InvarianceCase{4, 0.0, 300, 700, 64}),
                         [](const ::testing::TestParamInfo<InvarianceCase>& info) {
                           return "Gqa" + std::to_string(info.param.group) +
                                  (info.param.key_rise > 0.0 ? "_RisingKeys" : "") +
                                  (info.param.length != 4097 ? "_Small" : "") +
                                  (info.param.head_dim != 128 ? "_D64" : "");
                         });

// samebits.attention on CUDA runs the tensor cores only for a positive finite scale (the order's
// row max takes the largest score times the scale); any other scale runs the exact path, whose
// bits are the CPU twin's. The control: a positive scale's bits are not the twin's.
TEST(TensorCoreAttentionScale, AScaleNotPositiveRunsTheExactPath) {
  SAMEBITS_REQUIRE_CUDA();
  const AttentionShape s{at::kBFloat16, 4, 2, 64, true};
  const SequenceData d = sequence_data(s, 41, 300);
  const at::Tensor q = d.q.transpose(0, 1).unsqueeze(0).contiguous();  // [1, H, L, d]
  const at::Tensor k = d.k.transpose(0, 1).unsqueeze(0).contiguous();
  const at::Tensor v = d.v.transpose(0, 1).unsqueeze(0).contiguous();
  const at::Device cuda(at::kCUDA);
  for (const double scale : {-0.125, 0.0, 0.125}) {
    const AttentionOutputs cpu = invariant_attention(q, k, v, true, scale);
    const AttentionOutputs gpu =
        invariant_attention(q.to(cuda), k.to(cuda), v.to(cuda), true, scale);
    const bool same = same_bits(cpu.out, gpu.out.cpu()) && same_bits(cpu.lse, gpu.lse.cpu());
    EXPECT_EQ(same, scale <= 0.0) << "scale " << scale;
  }
}

// The epilogue's out = acc / l without a division per element (row_quotient.cuh) gives IEEE
// division's bits wherever it is taken: 2^32 pairs drawn across its range, none differ, while the
// same quotients without their correction step do (the control); and the range's edges.
TEST(TensorCoreAttentionQuotient, RowQuotientIsIeeeDivisionInItsRange) {
  SAMEBITS_REQUIRE_CUDA();
  at::Tensor counts = at::zeros({4}, at::device(at::kCUDA).dtype(at::kLong));
  ASSERT_EQ(kernels::attention_row_quotient_mismatches_cuda(
                reinterpret_cast<unsigned long long*>(counts.mutable_data_ptr<std::int64_t>()),
                at::cuda::getCurrentCUDAStream()),
            kernels::Status::ok);
  const at::Tensor c = counts.cpu();
  EXPECT_EQ(c[2].item<std::int64_t>(), std::int64_t{1} << 32) << "pairs compared";
  EXPECT_EQ(c[0].item<std::int64_t>(), 0) << "quotients unlike IEEE division";
  EXPECT_GT(c[1].item<std::int64_t>(), std::int64_t{1} << 20) << "the uncorrected control";
  EXPECT_EQ(c[3].item<std::int64_t>(), 0) << "edges of the range misclassified";
}

}  // namespace attention_tensor_cores_gpu_test_file
}  // namespace samebits
