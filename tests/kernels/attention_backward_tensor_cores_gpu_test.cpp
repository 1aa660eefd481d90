// The attention backward on tensor cores (label "gpu"; skipped without a GPU): within the bound of
// invariant_attention_backward_order.h of a float64 backward, and each sequence's gradient bits
// its own beside neighbours that cross tile borders, dense or packed, run to run, on another
// stream.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/device_choice.h"
#include "kernels/attention/backward_binding.h"
#include "kernels/attention/binding.h"
#include "tests/kernels/attention_backward_inputs.h"
#include "tests/kernels/attention_backward_reference.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace attention_backward_tensor_cores_gpu_test_file {}
using namespace attention_backward_tensor_cores_gpu_test_file;
namespace attention_backward_tensor_cores_gpu_test_file {

#define SAMEBITS_REQUIRE_CUDA() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU visible"

constexpr auto kTensorCores = kernels::AttentionAlgorithm::tensor_cores;
constexpr auto kExact = kernels::AttentionAlgorithm::exact;
constexpr bool kSameStream = false, kOtherStream = true, kCudaForward = true;

// The tensor-core path's forward and backward over `calls` on the GPU (the backward's blocks on
// wgmma on Hopper, unless `warpgroup_mma` is false: then on mma.sync everywhere).
GradientResult on_tensor_cores(const AttentionShape& s, const std::vector<SequenceCall>& calls,
                               bool other_stream = kSameStream, bool warpgroup_mma = true) {
  return run_attention_backward(s, calls, true, other_stream, kCudaForward, kTensorCores,
                                warpgroup_mma);
}

// The bound of the order header: u |ref| + (3u/2 + eps) M + tiny (1 + A), eps = (2d + G n + 64)
// 2^-22 (1 + the largest scaled sum|q||k|), n the sequence's keys; tiny half the dtype's smallest
// subnormal step, A the sum of |k|, |q| (times scale) or |dO| over the pairs the gradient sums.
struct Limits {
  at::Tensor dq, dk, dv;
};
Limits tensor_core_limits(const AttentionShape& s, const Problem64& x, const Gradients64& ref) {
  const double score =
      (at::matmul(x.q.abs(), expand(x, x.k).abs().transpose(1, 2)) * x.scale).max().item<double>();
  const double n = static_cast<double>(x.k.size(1)), d = static_cast<double>(s.head_dim);
  const bool bf16 = s.dtype == at::kBFloat16;
  const double u = bf16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11);
  const double tiny = bf16 ? std::ldexp(1.0, -134) : std::ldexp(1.0, -25);
  const double eps = (2 * d + x.group * n + 64) * std::ldexp(1.0, -22) * (1 + score);
  at::Tensor seen = at::ones({x.q.size(0), x.q.size(1), x.k.size(1)}, x.q.options());
  if (x.hidden.defined()) seen = seen.masked_fill(x.hidden, 0.0);
  const at::Tensor aq = at::matmul(seen, expand(x, x.k).abs()) * x.scale;
  const at::Tensor ak = per_kv_head(x, at::matmul(seen.transpose(1, 2), x.q.abs()) * x.scale);
  const at::Tensor av = per_kv_head(x, at::matmul(seen.transpose(1, 2), x.dout.abs()));
  const auto limit = [&](const at::Tensor& r, const at::Tensor& m, const at::Tensor& a) {
    return r.abs() * u + m * (1.5 * u + eps) + (a + 1) * tiny;
  };
  return {limit(ref.dq, ref.mq, aq), limit(ref.dk, ref.mk, ak), limit(ref.dv, ref.mv, av)};
}

// Call `c`'s gradients of r, heads first like Problem64.
struct CallGradients {
  at::Tensor dq, dk, dv;
};
CallGradients call_gradients(const GradientResult& r, std::size_t c) {
  return {r.q_rows(r.dq, c).transpose(0, 1), r.key_rows(r.dk, c).transpose(0, 1),
          r.key_rows(r.dv, c).transpose(0, 1)};
}

::testing::AssertionResult same_gradients(const GradientResult& want, std::size_t a,
                                          const GradientResult& got, std::size_t b) {
  const CallGradients x = call_gradients(want, a), y = call_gradients(got, b);
  for (const auto& [name, p, q] :
       {std::make_tuple("dq", x.dq, y.dq), std::make_tuple("dk", x.dk, y.dk),
        std::make_tuple("dv", x.dv, y.dv)}) {
    if (const auto r = same_bits(p, q); !r)
      return ::testing::AssertionFailure() << name << ": " << r.message();
  }
  return ::testing::AssertionSuccess();
}

struct OracleCase {
  at::ScalarType dtype;
  std::int64_t head_dim, group;
  bool causal;
};

std::string oracle_name(const ::testing::TestParamInfo<OracleCase>& info) {
  const OracleCase& c = info.param;
  return std::string(c.dtype == at::kBFloat16 ? "Bf16" : "F16") + "_D" +
         std::to_string(c.head_dim) + "_G" + std::to_string(c.group) +
         (c.causal ? "_Causal" : "_Full");
}

class TensorCoreBackwardOracle : public ::testing::TestWithParam<OracleCase> {};

// Whole prefills of 1, 10, 70 and 200 and a chunk (the last 20 queries of 90 keys), in one batch:
// every call within the bound of its float64 backward, and so is the exact CUDA path; the dQ of a
// backward that forgets D (the planted flaw) is outside it, and the two paths' bits differ. The
// blocks on mma.sync give the bits of those on wgmma (Hopper), call by call.
TEST_P(TensorCoreBackwardOracle, WithinTheBoundOfFloat64) {
  SAMEBITS_REQUIRE_CUDA();
  const OracleCase& oc = GetParam();
  const AttentionShape s{oc.dtype, 8, 8 / oc.group, oc.head_dim, oc.causal};
  const std::vector<SequenceCall> calls{
      {11, 70, 70, 70}, {12, 100, 90, 20}, {13, 1, 1, 1}, {14, 10, 10, 10}, {15, 200, 200, 200}};
  const GradientResult tc = on_tensor_cores(s, calls);
  const GradientResult exact = run_attention_backward(s, calls, true, kSameStream, kCudaForward);
  const GradientResult on_sync = on_tensor_cores(s, calls, kSameStream, /*warpgroup_mma=*/false);
  bool differ = false;
  for (std::size_t c = 0; c < calls.size(); ++c) {
    const Problem64 x = problem64(s, calls[c]);
    const Gradients64 ref = backward64(x), flawed = backward64(x, /*drop_delta=*/true);
    const Limits l = tensor_core_limits(s, x, ref);
    const at::Tensor &lq = l.dq, &lk = l.dk, &lv = l.dv;
    const CallGradients got = call_gradients(tc, c), ex = call_gradients(exact, c);
    const std::string where = "call " + std::to_string(c);
    EXPECT_TRUE(same_gradients(tc, c, on_sync, c)) << where << ": wgmma against mma.sync";
    EXPECT_TRUE(within("dq", got.dq, ref.dq, lq)) << where;
    EXPECT_TRUE(within("dk", got.dk, ref.dk, lk)) << where;
    EXPECT_TRUE(within("dv", got.dv, ref.dv, lv)) << where;
    EXPECT_TRUE(within("exact dq", ex.dq, ref.dq, lq)) << where;
    EXPECT_TRUE(within("exact dk", ex.dk, ref.dk, lk)) << where;
    EXPECT_TRUE(within("exact dv", ex.dv, ref.dv, lv)) << where;
    // (a lone key's dS is 0 whatever D is; dK's D term, summed over a group's heads of a full
    // mask, can hide in the bound: dQ's cannot)
    if (calls[c].q_len >= 10) {
      EXPECT_FALSE(within("dq without D", got.dq, flawed.dq, lq)) << where;
    }
    differ = differ || !same_bits(got.dq, ex.dq) || !same_bits(got.dk, ex.dk);
  }
  EXPECT_TRUE(differ) << "the tensor-core path gave the exact path's bits: did it run?";
}

INSTANTIATE_TEST_SUITE_P(Shapes, TensorCoreBackwardOracle,
                         ::testing::Values(OracleCase{at::kBFloat16, 64, 1, true},
                                           OracleCase{at::kBFloat16, 128, 4, true},
                                           OracleCase{at::kBFloat16, 128, 8, false},
                                           OracleCase{at::kHalf, 64, 4, false},
                                           OracleCase{at::kHalf, 128, 1, true},
                                           OracleCase{at::kBFloat16, 64, 8, true}),
                         oracle_name);

struct InvarianceCase {
  at::ScalarType dtype;
  std::int64_t head_dim, group;
  bool causal;
};

class TensorCoreBackwardInvariance : public ::testing::TestWithParam<InvarianceCase> {};

// A sequence of 1025 (whole, and as a chunk of its last 100 queries) alone and beside neighbours
// of 4095, 4096, 4097, 9, 10 and 127..129 tokens, first, between and last: the same bits; the
// batch again and on a stream from the pool: the same bits. The control: another sequence of the
// same length gives other bits. The first batch on mma.sync blocks: the same bits as on wgmma.
TEST_P(TensorCoreBackwardInvariance, ASequencesGradientsAreItsOwn) {
  SAMEBITS_REQUIRE_CUDA();
  const InvarianceCase& ic = GetParam();
  const AttentionShape s{ic.dtype, 8, 8 / ic.group, ic.head_dim, ic.causal};
  const auto n = [](std::uint64_t seed, std::int64_t len) {
    return SequenceCall{seed, len, len, len};
  };
  for (const SequenceCall& mine : {n(77, 1025), SequenceCall{78, 1100, 1025, 100}}) {
    const GradientResult alone = on_tensor_cores(s, {mine});
    const std::vector<std::vector<SequenceCall>> batches{{n(1, 4095), mine, n(2, 9)},
                                                         {mine, n(3, 4096), n(4, 10), n(5, 127)},
                                                         {n(6, 128), n(7, 129), n(8, 4097), mine}};
    for (std::size_t b = 0; b < batches.size(); ++b) {
      std::size_t at = 0;
      while (batches[b][at].seed != mine.seed) ++at;
      const GradientResult in = on_tensor_cores(s, batches[b]);
      const std::string where = "seed " + std::to_string(mine.seed) + " batch " + std::to_string(b);
      EXPECT_TRUE(same_gradients(alone, 0, in, at)) << where;
      if (b == 0) {
        EXPECT_TRUE(same_gradients(in, at, on_tensor_cores(s, batches[b]), at)) << where;
        EXPECT_TRUE(same_gradients(in, at, on_tensor_cores(s, batches[b], kOtherStream), at))
            << where << " (another stream)";
        const GradientResult on_sync = on_tensor_cores(s, batches[b], kSameStream, false);
        for (std::size_t c = 0; c < batches[b].size(); ++c)
          EXPECT_TRUE(same_gradients(in, c, on_sync, c)) << where << " call " << c << ", mma.sync";
      }
    }
  }
  const GradientResult mine = on_tensor_cores(s, {n(77, 1025)});
  const GradientResult other = on_tensor_cores(s, {n(79, 1025)});
  EXPECT_FALSE(same_gradients(mine, 0, other, 0)) << "the control: another sequence's bits";
}

INSTANTIATE_TEST_SUITE_P(Groups, TensorCoreBackwardInvariance,
                         ::testing::Values(InvarianceCase{at::kBFloat16, 128, 1, true},
                                           InvarianceCase{at::kBFloat16, 128, 4, false},
                                           InvarianceCase{at::kBFloat16, 128, 8, true},
                                           InvarianceCase{at::kHalf, 64, 1, false},
                                           InvarianceCase{at::kHalf, 64, 4, true},
                                           InvarianceCase{at::kBFloat16, 64, 8, false}),
                         [](const ::testing::TestParamInfo<InvarianceCase>& info) {
                           const InvarianceCase& c = info.param;
                           return std::string(c.dtype == at::kBFloat16 ? "Bf16" : "F16") + "_D" +
                                  std::to_string(c.head_dim) + "_G" + std::to_string(c.group) +
                                  (c.causal ? "_Causal" : "_Full");
                         });

// Through the ops' C++ entry points (tensor cores picked for CUDA, d 128): two sequences of 300
// dense [B, H, L, d] (a strided view) and packed beside a neighbour of 129, on the same out and
// lse: the same bits per sequence, and the bits of the kernel's tensor-core path on the same batch.
TEST(TensorCoreBackwardLayouts, DenseAndPackedGiveTheSameBits) {
  SAMEBITS_REQUIRE_CUDA();
  for (const bool causal : {true, false}) {
    const AttentionShape s{at::kBFloat16, 8, 2, 128, causal};
    const std::vector<SequenceCall> calls{
        {31, 300, 300, 300}, {32, 129, 129, 129}, {33, 300, 300, 300}};
    const GradientResult kernel = on_tensor_cores(s, calls);
    std::vector<at::Tensor> qs, ks, vs, dos;
    std::vector<std::int64_t> q_off{0}, kv_off{0};
    for (const auto& c : calls) {
      const SequenceData d = sequence_data(s, c.seed, c.length);
      qs.push_back(d.q);
      ks.push_back(d.k);
      vs.push_back(d.v);
      dos.push_back(upstream_gradient(s, c.seed, c.length));
      q_off.push_back(q_off.back() + c.q_len);
      kv_off.push_back(kv_off.back() + c.kv_len);
    }
    const auto cuda = [](const at::Tensor& x) { return x.to(at::kCUDA).contiguous(); };
    const at::Tensor q = cuda(at::cat(qs)), k = cuda(at::cat(ks)), v = cuda(at::cat(vs)),
                     dout = cuda(at::cat(dos));
    const at::Tensor qo = cuda(at::tensor(q_off, at::kLong)),
                     ko = cuda(at::tensor(kv_off, at::kLong));
    const AttentionOutputs fwd = invariant_attention_varlen(q, k, v, qo, ko, 300, causal);
    const AttentionGradients packed =
        invariant_attention_varlen_backward(dout, q, k, v, fwd.out, fwd.lse, qo, ko, 300, causal);
    EXPECT_TRUE(same_bits(kernel.dq, packed.dq.cpu())) << "packed op vs kernel";
    EXPECT_TRUE(same_bits(kernel.dk, packed.dk.cpu())) << "packed op vs kernel";
    EXPECT_TRUE(same_bits(kernel.dv, packed.dv.cpu())) << "packed op vs kernel";
    // Sequences 0 and 2 as a dense batch: [B, L, H, d] viewed as [B, H, L, d].
    const auto dense = [&](const at::Tensor& x) {
      return at::stack({x.slice(0, 0, 300), x.slice(0, 429, 729)}).transpose(1, 2);
    };
    const at::Tensor lse = at::stack({fwd.lse.slice(1, 0, 300), fwd.lse.slice(1, 429, 729)});
    const AttentionGradients dg = invariant_attention_backward(
        dense(dout), dense(q), dense(k), dense(v), dense(fwd.out), lse, causal);
    for (const auto& [b, first] : {std::make_pair(0, 0), std::make_pair(1, 429)}) {
      const std::string where =
          std::string(causal ? "causal" : "full") + " sequence " + std::to_string(b);
      EXPECT_TRUE(
          same_bits(packed.dq.slice(0, first, first + 300).cpu(), dg.dq[b].transpose(0, 1).cpu()))
          << where;
      EXPECT_TRUE(
          same_bits(packed.dk.slice(0, first, first + 300).cpu(), dg.dk[b].transpose(0, 1).cpu()))
          << where;
      EXPECT_TRUE(
          same_bits(packed.dv.slice(0, first, first + 300).cpu(), dg.dv[b].transpose(0, 1).cpu()))
          << where;
    }
  }
}

}  // namespace attention_backward_tensor_cores_gpu_test_file
}  // namespace samebits
