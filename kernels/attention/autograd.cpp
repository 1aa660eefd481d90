// Autograd for torch.ops.samebits.attention and attention_varlen: torch::autograd::Function's
// whose forward is the invariant attention and whose backward is the invariant backward.
#include "kernels/attention/autograd.h"

#include <ATen/core/grad_mode.h>
#include <torch/autograd.h>

#include <tuple>

#include "kernels/attention/backward_binding.h"

namespace samebits {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

// The upstream gradient of out; undefined where no loss reached it (grads are not materialized,
// so none is made for lse): zeros like out.
at::Tensor upstream(const at::Tensor& grad, const at::Tensor& out) {
  return grad.defined() ? grad : at::zeros_like(out);
}

// Both forwards keep q, k, v (and the offsets) with out and lse; lse gets requires_grad false.
void keep(AutogradContext* ctx, std::vector<at::Tensor> saved, const AttentionOutputs& r) {
  saved.push_back(r.out);
  saved.push_back(r.lse);
  ctx->save_for_backward(saved);
  ctx->mark_non_differentiable({r.lse});
  ctx->set_materialize_grads(false);
}

struct DenseAttention : torch::autograd::Function<DenseAttention> {
  static tensor_list forward(AutogradContext* ctx, const at::Tensor& q, const at::Tensor& k,
                             const at::Tensor& v, bool causal, std::optional<double> scale) {
    const AttentionOutputs r = invariant_attention(q, k, v, causal, scale);
    keep(ctx, {q, k, v}, r);
    ctx->saved_data["causal"] = causal;
    ctx->saved_data["scale"] = scale;
    return {r.out, r.lse};
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
    const auto s = ctx->get_saved_variables();  // q, k, v, out, lse
    const AttentionGradients g = invariant_attention_backward(
        upstream(grads[0], s[3]), s[0], s[1], s[2], s[3], s[4], ctx->saved_data["causal"].toBool(),
        ctx->saved_data["scale"].toOptional<double>());
    return {g.dq, g.dk, g.dv, at::Tensor(), at::Tensor()};
  }
};

struct VarlenAttention : torch::autograd::Function<VarlenAttention> {
  static tensor_list forward(AutogradContext* ctx, const at::Tensor& q, const at::Tensor& k,
                             const at::Tensor& v, const at::Tensor& q_offsets,
                             const at::Tensor& kv_offsets, std::int64_t max_q_len, bool causal,
                             std::optional<double> scale, std::int64_t max_kv_len,
                             const std::optional<at::Tensor>& status) {
    const AttentionOutputs r = invariant_attention_varlen(q, k, v, q_offsets, kv_offsets, max_q_len,
                                                          causal, scale, max_kv_len, status);
    keep(ctx, {q, k, v, q_offsets, kv_offsets}, r);
    ctx->saved_data["max_q_len"] = max_q_len;  // the forward's bounds size the backward too
    ctx->saved_data["max_kv_len"] = max_kv_len;
    ctx->saved_data["causal"] = causal;
    ctx->saved_data["scale"] = scale;
    return {r.out, r.lse};
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
    const auto s = ctx->get_saved_variables();  // q, k, v, q_offsets, kv_offsets, out, lse
    const AttentionGradients g = invariant_attention_varlen_backward(
        upstream(grads[0], s[5]), s[0], s[1], s[2], s[5], s[6], s[3], s[4],
        ctx->saved_data["max_q_len"].toInt(), ctx->saved_data["causal"].toBool(),
        ctx->saved_data["scale"].toOptional<double>(), ctx->saved_data["max_kv_len"].toInt());
    return {g.dq,         g.dk,         g.dv,         at::Tensor(), at::Tensor(),
            at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

std::tuple<at::Tensor, at::Tensor> attention_kernel(const at::Tensor& q, const at::Tensor& k,
                                                    const at::Tensor& v, bool causal,
                                                    std::optional<double> scale) {
  const AttentionOutputs r = differentiable_attention(q, k, v, causal, scale);
  return {r.out, r.lse};
}

std::tuple<at::Tensor, at::Tensor> attention_varlen_kernel(
    const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& q_offsets,
    const at::Tensor& kv_offsets, std::int64_t max_q_len, bool causal, std::optional<double> scale,
    std::int64_t max_kv_len, const std::optional<at::Tensor>& status) {
  const AttentionOutputs r = differentiable_attention_varlen(
      q, k, v, q_offsets, kv_offsets, max_q_len, causal, scale, max_kv_len, status);
  return {r.out, r.lse};
}

// Whether autograd would record a call over these inputs: else the plain call, with no node made
// (an engine's decode step pays nothing for the registration).
bool records(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
  return at::GradMode::is_enabled() &&
         (q.requires_grad() || k.requires_grad() || v.requires_grad());
}

}  // namespace

AttentionOutputs differentiable_attention(const at::Tensor& q, const at::Tensor& k,
                                          const at::Tensor& v, bool causal,
                                          std::optional<double> scale) {
  if (!records(q, k, v)) return invariant_attention(q, k, v, causal, scale);
  const tensor_list r = DenseAttention::apply(q, k, v, causal, scale);
  return {r[0], r[1]};
}

AttentionOutputs differentiable_attention_varlen(
    const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& q_offsets,
    const at::Tensor& kv_offsets, std::int64_t max_q_len, bool causal, std::optional<double> scale,
    std::int64_t max_kv_len, const std::optional<at::Tensor>& status) {
  if (!records(q, k, v))
    return invariant_attention_varlen(q, k, v, q_offsets, kv_offsets, max_q_len, causal, scale,
                                      max_kv_len, status);
  const tensor_list r = VarlenAttention::apply(q, k, v, q_offsets, kv_offsets, max_q_len, causal,
                                               scale, max_kv_len, status);
  return {r[0], r[1]};
}

void implement_attention_autograd(torch::Library& m) {
  m.impl("attention", attention_kernel);
  m.impl("attention_varlen", attention_varlen_kernel);
}

}  // namespace samebits
