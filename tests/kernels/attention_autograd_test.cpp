// Autograd through torch.ops.samebits.attention and attention_varlen, registered in C++: a loss's
// backward gives the explicit backward op's bits, lse takes no gradient, no grad mode records none.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <gtest/gtest.h>
#include <torch/autograd.h>

#include "kernels/attention/autograd.h"
#include "kernels/attention/backward_binding.h"
#include "tests/kernels/attention_inputs.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace attention_autograd_test_file {}
using namespace attention_autograd_test_file;
namespace attention_autograd_test_file {

using Outputs = std::tuple<at::Tensor, at::Tensor>;

// Through the dispatcher, as Python and C++ callers reach the op (its Autograd kernel first).
Outputs dense_op(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("samebits::attention", "")
                       .typed<Outputs(const at::Tensor&, const at::Tensor&, const at::Tensor&, bool,
                                      std::optional<double>)>();
  return op.call(q, k, v, true, std::nullopt);
}

// Two sequences of 70 tokens, H = 4, Hkv = 2 (GQA: dK, dV sum over two heads), d = 64, bf16,
// [B, H, L, d]; each a fresh leaf.
struct Leaves {
  at::Tensor q, k, v;
};
Leaves dense_leaves() {
  const AttentionShape s{at::kBFloat16, 4, 2, 64, true};
  std::vector<at::Tensor> q, k, v;
  for (std::uint64_t seed : {71, 72}) {
    const SequenceData d = sequence_data(s, seed, 70);
    q.push_back(d.q.transpose(0, 1));
    k.push_back(d.k.transpose(0, 1));
    v.push_back(d.v.transpose(0, 1));
  }
  return {at::stack(q).contiguous().requires_grad_(), at::stack(k).contiguous().requires_grad_(),
          at::stack(v).contiguous().requires_grad_()};
}

at::Tensor upstream_like(const at::Tensor& out, std::uint64_t seed) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  return at::randn(out.sizes(), gen, at::TensorOptions().dtype(at::kFloat)).to(out.scalar_type());
}

TEST(AttentionAutograd, DenseBackwardIsTheBackwardOpsBits) {
  const Leaves x = dense_leaves();
  const auto [out, lse] = dense_op(x.q, x.k, x.v);
  ASSERT_TRUE(out.requires_grad());
  EXPECT_FALSE(lse.requires_grad());
  const at::Tensor g = upstream_like(out, 5);
  (out.to(at::kFloat) * g.to(at::kFloat)).sum().backward();
  const AttentionGradients want = invariant_attention_backward(
      g, x.q.detach(), x.k.detach(), x.v.detach(), out.detach(), lse, true);
  EXPECT_TRUE(same_bits(want.dq, x.q.grad()));
  EXPECT_TRUE(same_bits(want.dk, x.k.grad()));
  EXPECT_TRUE(same_bits(want.dv, x.v.grad()));
  // The control: another upstream gradient gives other bits (the comparison can fail).
  const AttentionGradients other = invariant_attention_backward(
      upstream_like(out, 6), x.q.detach(), x.k.detach(), x.v.detach(), out.detach(), lse, true);
  EXPECT_FALSE(same_bits(other.dq, x.q.grad()));
}

TEST(AttentionAutograd, VarlenBackwardIsTheBackwardOpsBits) {
  // The same two sequences packed [T, H, d] with offsets; a key row past both stays at zero.
  const Leaves d = dense_leaves();
  const at::Tensor q = d.q.detach().transpose(1, 2).reshape({140, 4, 64}).requires_grad_();
  const at::Tensor pad = at::zeros({1, 2, 64}, d.k.options());
  const at::Tensor k =
      at::cat({d.k.detach().transpose(1, 2).reshape({140, 2, 64}), pad}).requires_grad_();
  const at::Tensor v =
      at::cat({d.v.detach().transpose(1, 2).reshape({140, 2, 64}), pad}).requires_grad_();
  const at::Tensor offsets = at::tensor(std::vector<std::int64_t>{0, 70, 140}, at::kLong);
  const AttentionOutputs r = differentiable_attention_varlen(q, k, v, offsets, offsets);
  ASSERT_TRUE(r.out.requires_grad());
  EXPECT_FALSE(r.lse.requires_grad());
  const at::Tensor g = upstream_like(r.out, 7);
  torch::autograd::backward({r.out}, {g});
  const AttentionGradients want = invariant_attention_varlen_backward(
      g, q.detach(), k.detach(), v.detach(), r.out.detach(), r.lse, offsets, offsets);
  EXPECT_TRUE(same_bits(want.dq, q.grad()));
  EXPECT_TRUE(same_bits(want.dk, k.grad()));
  EXPECT_TRUE(same_bits(want.dv, v.grad()));
  EXPECT_EQ(k.grad()[140].abs().max().item<float>(), 0.0f);
  // Packed or dense, a sequence's gradients are its own: the dense call's bits, row for row.
  const auto [out, lse] = dense_op(d.q, d.k, d.v);
  torch::autograd::backward({out}, {g.view({2, 70, 4, 64}).transpose(1, 2)});
  EXPECT_TRUE(same_bits(d.q.grad().transpose(1, 2).reshape({140, 4, 64}), q.grad()));
  EXPECT_TRUE(
      same_bits(d.k.grad().transpose(1, 2).reshape({140, 2, 64}), k.grad().narrow(0, 0, 140)));
}

TEST(AttentionAutograd, NoGradModeRecordsNothing) {
  const Leaves x = dense_leaves();
  {
    const at::NoGradGuard no_grad;
    const auto [out, lse] = dense_op(x.q, x.k, x.v);
    EXPECT_FALSE(out.requires_grad());
  }
  const auto [out, lse] = dense_op(x.q.detach(), x.k.detach(), x.v.detach());
  EXPECT_FALSE(out.requires_grad());
}

TEST(AttentionAutograd, LseAloneTakesNoLoss) {
  const Leaves x = dense_leaves();
  const auto [out, lse] = dense_op(x.q, x.k, x.v);
  EXPECT_THROW(lse.sum().backward(), c10::Error);  // lse does not require grad
}

}  // namespace attention_autograd_test_file
}  // namespace samebits
