// The attention backward's CPU twin: within a derived bound of a float64 backward that finite
// differences of the float64 forward confirm, and each sequence's gradient bits its own.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tests/kernels/attention_backward_inputs.h"
#include "tests/kernels/attention_backward_reference.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace attention_backward_test_file {}
using namespace attention_backward_test_file;
namespace attention_backward_test_file {

// The bound, derived: the output's rounding (u = 2^-8 of |ref| for bfloat16, 2^-11 for float16,
// twice the half ulp), D from the rounded O (half an ulp of each |dO_j O_j|: u/2 of the
// magnitude), and float32's own error, at most (2d + n + 16) 2^-24 (1 + the largest scaled
// sum|q||k|) of the magnitude: the dots' and the lse's rounding moving P, and the chains' sums.
// An output among the dtype's subnormals rounds absolutely, by up to half their step (tiny: 2^-25
// for float16, 2^-134 for bfloat16), which no relative term covers (the tensor-core bound's tiny;
// the exact path keeps P and dS in float32, so only the output's rounding adds it).
struct Bound {
  double u, eps32, tiny;
};
Bound bound_for(const AttentionShape& s, const Problem64& x) {
  const double score =
      (at::matmul(x.q.abs(), expand(x, x.k).abs().transpose(1, 2)) * x.scale).max().item<double>();
  const double n = static_cast<double>(x.k.size(1)), d = static_cast<double>(s.head_dim);
  const bool bf16 = s.dtype == at::kBFloat16;
  return {bf16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11),
          (2 * d + n + 16) * std::ldexp(1.0, -24) * (1 + score),
          bf16 ? std::ldexp(1.0, -134) : std::ldexp(1.0, -25)};
}
at::Tensor allowed(const Bound& b, const at::Tensor& ref, const at::Tensor& magnitude) {
  return ref.abs() * b.u + magnitude * (b.u / 2 + b.eps32) + b.tiny;
}
// The twin's gradients of call 0, heads first like Problem64.
struct TwinGradients {
  at::Tensor dq, dk, dv;
};
TwinGradients twin(const AttentionShape& s, const SequenceCall& c) {
  const GradientResult r = run_attention_backward(s, {c}, false);
  return {r.dq.transpose(0, 1), r.dk.transpose(0, 1), r.dv.transpose(0, 1)};
}

struct OracleCase {
  at::ScalarType dtype;
  std::int64_t head_dim, group;
  bool causal;
};

class AttentionBackwardOracle : public ::testing::TestWithParam<OracleCase> {};

TEST_P(AttentionBackwardOracle, TwinWithinTheBoundOfFloat64AndFiniteDifferences) {
  const OracleCase& oc = GetParam();
  const AttentionShape s{oc.dtype, 4, 4 / oc.group, oc.head_dim, oc.causal};
  // A whole prefill of 70 (keys past one 64 tile) and a chunk: the last 20 queries of 90 keys.
  for (const SequenceCall& c : {SequenceCall{11, 70, 70, 70}, SequenceCall{12, 100, 90, 20}}) {
    const Problem64 x = problem64(s, c);
    const Gradients64 ref = backward64(x);
    const TwinGradients got = twin(s, c);
    const Bound b = bound_for(s, x);
    const at::Tensor lq = allowed(b, ref.dq, ref.mq), lk = allowed(b, ref.dk, ref.mk),
                     lv = allowed(b, ref.dv, ref.mv);
    EXPECT_TRUE(within("dq", got.dq, ref.dq, lq));
    EXPECT_TRUE(within("dk", got.dk, ref.dk, lk));
    EXPECT_TRUE(within("dv", got.dv, ref.dv, lv));
    // The control: a backward that forgets D (a planted flaw) is outside the same bound.
    const Gradients64 flawed = backward64(x, /*drop_delta=*/true);
    EXPECT_FALSE(within("dq without D", got.dq, flawed.dq, lq));
    EXPECT_FALSE(within("dk without D", got.dk, flawed.dk, lk));

    // Finite differences of the float64 forward along seeded directions (4-point stencil, h =
    // 2^-10: truncation ~h^4, rounding ~2^-52 / h): the float64 backward's directional
    // derivative to 1e-7 of the sum of its terms' sizes (the flawed one's not), the twin's
    // within its bound.
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(c.seed + 1000);
    const auto f64 = at::TensorOptions().dtype(at::kDouble);
    for (int direction = 0; direction < 2; ++direction) {
      const at::Tensor uq = at::randn(x.q.sizes(), gen, f64), uk = at::randn(x.k.sizes(), gen, f64),
                       uv = at::randn(x.v.sizes(), gen, f64);
      const double h = std::ldexp(1.0, -10);
      const auto at_step = [&](double t) {
        return loss64(x, x.q + uq * t, x.k + uk * t, x.v + uv * t);
      };
      const double fd =
          (at_step(-2 * h) - 8 * at_step(-h) + 8 * at_step(h) - at_step(2 * h)) / (12 * h);
      const auto along = [&](const at::Tensor& dq, const at::Tensor& dk, const at::Tensor& dv) {
        return ((dq.to(at::kDouble) * uq).sum() + (dk.to(at::kDouble) * uk).sum() +
                (dv.to(at::kDouble) * uv).sum())
            .item<double>();
      };
      const double size = (ref.dq.abs() * uq.abs()).sum().item<double>() +
                          (ref.dk.abs() * uk.abs()).sum().item<double>() +
                          (ref.dv.abs() * uv.abs()).sum().item<double>();
      const double slack = (lq * uq.abs()).sum().item<double>() +
                           (lk * uk.abs()).sum().item<double>() +
                           (lv * uv.abs()).sum().item<double>();
      const double tolerance = 1e-7 * (1 + size);
      EXPECT_NEAR(along(ref.dq, ref.dk, ref.dv), fd, tolerance) << "direction " << direction;
      EXPECT_NEAR(along(got.dq, got.dk, got.dv), fd, slack) << "direction " << direction;
      EXPECT_GT(std::abs(along(flawed.dq, flawed.dk, flawed.dv) - fd), tolerance)
          << "the flawed backward passed the finite differences, direction " << direction;
    }
  }
}

std::string oracle_name(const ::testing::TestParamInfo<OracleCase>& info) {
  const OracleCase& c = info.param;
  return std::string(c.dtype == at::kBFloat16 ? "Bf16" : "F16") + "_D" +
         std::to_string(c.head_dim) + "_G" + std::to_string(c.group) +
         (c.causal ? "_Causal" : "_Full");
}

INSTANTIATE_TEST_SUITE_P(Shapes, AttentionBackwardOracle,
                         ::testing::Values(OracleCase{at::kBFloat16, 64, 1, true},
                                           OracleCase{at::kBFloat16, 64, 4, false},
                                           OracleCase{at::kHalf, 128, 2, true},
                                           OracleCase{at::kHalf, 256, 1, false},
                                           OracleCase{at::kBFloat16, 256, 4, true}),
                         oracle_name);

// One sequence's gradients alone and packed beside neighbours whose lengths cross the 9 -> 10
// and 127/128/129 borders, first, between and last, whole and as a chunk: the same bits (the
// GPU test adds 4095..4097).
struct InvarianceCase {
  std::int64_t group;
  bool causal;
};

class AttentionBackwardInvariance : public ::testing::TestWithParam<InvarianceCase> {};

TEST_P(AttentionBackwardInvariance, ASequencesGradientsAreItsOwn) {
  const InvarianceCase& ic = GetParam();
  const AttentionShape s{at::kBFloat16, 8, 8 / ic.group, 64, ic.causal};
  const auto neighbour = [](std::uint64_t seed, std::int64_t n) {
    return SequenceCall{seed, n, n, n};
  };
  const SequenceCall whole{77, 100, 100, 100}, chunk{78, 110, 110, 30};  // the last 30 of 110
  const std::vector<std::pair<SequenceCall, std::vector<std::vector<SequenceCall>>>> placements{
      {whole,
       {{neighbour(1, 9), whole, neighbour(2, 10)},
        {neighbour(3, 127), neighbour(4, 128), whole},
        {whole, neighbour(5, 129)}}},
      {chunk, {{neighbour(6, 10), chunk, neighbour(7, 128)}}}};
  for (const auto& [mine, batches] : placements) {
    const GradientResult alone = run_attention_backward(s, {mine}, false);
    for (std::size_t n = 0; n < batches.size(); ++n) {
      const auto& calls = batches[n];
      std::size_t at = 0;
      while (calls[at].seed != mine.seed) ++at;
      const GradientResult in = run_attention_backward(s, calls, false);
      const std::string where = "seed " + std::to_string(mine.seed) + " batch " + std::to_string(n);
      EXPECT_TRUE(same_bits(alone.dq, in.q_rows(in.dq, at))) << where;
      EXPECT_TRUE(same_bits(alone.dk, in.key_rows(in.dk, at))) << where;
      EXPECT_TRUE(same_bits(alone.dv, in.key_rows(in.dv, at))) << where;
    }
  }
  // The control: another sequence of the same length gives other bits.
  const GradientResult mine = run_attention_backward(s, {whole}, false);
  const GradientResult other = run_attention_backward(s, {{79, 100, 100, 100}}, false);
  EXPECT_FALSE(same_bits(mine.dq, other.dq));
  EXPECT_FALSE(same_bits(mine.dk, other.dk));
  EXPECT_FALSE(same_bits(mine.dv, other.dv));
}

INSTANTIATE_TEST_SUITE_P(Groups, AttentionBackwardInvariance,
                         ::testing::Values(InvarianceCase{1, true}, InvarianceCase{4, true},
                                           InvarianceCase{8, true}, InvarianceCase{1, false},
                                           InvarianceCase{4, false}, InvarianceCase{8, false}),
                         [](const ::testing::TestParamInfo<InvarianceCase>& info) {
                           return "G" + std::to_string(info.param.group) +
                                  (info.param.causal ? "_Causal" : "_Full");
                         });

}  // namespace attention_backward_test_file
}  // namespace samebits
