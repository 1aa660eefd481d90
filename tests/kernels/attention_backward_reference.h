// The float64 attention backward the gradient tests hold the kernels to: one sequence's
// gradients written from the calculus (not from any kernel's order), and an error check per
// element.
#pragma once

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "tests/kernels/attention_backward_inputs.h"

namespace samebits {

// One sequence in float64, heads first: q, dout [H, ql, d], k, v [Hkv, kv, d]; hidden [ql, kv]
// marks the keys a query does not see (causal), or is undefined.
struct Problem64 {
  at::Tensor q, k, v, dout, hidden;
  std::int64_t group = 1;
  double scale = 0.0;
};

inline Problem64 problem64(const AttentionShape& s, const SequenceCall& c) {
  const SequenceData d = sequence_data(s, c.seed, c.length);
  const auto rows = [&](const at::Tensor& x) {
    return x.slice(0, c.kv_len - c.q_len, c.kv_len).to(at::kDouble).transpose(0, 1).contiguous();
  };
  const auto keys = [&](const at::Tensor& x) {
    return x.slice(0, 0, c.kv_len).to(at::kDouble).transpose(0, 1).contiguous();
  };
  Problem64 x;
  x.q = rows(d.q);
  x.k = keys(d.k);
  x.v = keys(d.v);
  x.dout = rows(upstream_gradient(s, c.seed, c.length));
  x.group = s.heads / s.kv_heads;
  x.scale = 1.0 / std::sqrt(static_cast<double>(s.head_dim));
  if (s.causal) {
    const at::Tensor position = at::arange(c.kv_len - c.q_len, c.kv_len).view({-1, 1});
    x.hidden = at::arange(c.kv_len).view({1, -1}).gt(position);
  }
  return x;
}

inline at::Tensor expand(const Problem64& x, const at::Tensor& kv) {
  return kv.repeat_interleave(x.group, 0);
}
inline at::Tensor probabilities(const Problem64& x, const at::Tensor& q, const at::Tensor& k) {
  at::Tensor scores = at::matmul(q, expand(x, k).transpose(1, 2)) * x.scale;
  if (x.hidden.defined()) scores = scores.masked_fill(x.hidden, -INFINITY);
  return at::softmax(scores, -1);
}
// [H, kv, d] summed over each group's heads: [Hkv, kv, d].
inline at::Tensor per_kv_head(const Problem64& x, const at::Tensor& t) {
  return t.view({-1, x.group, t.size(1), t.size(2)}).sum(1);
}
// The loss sum(dout * O) of the float64 forward, for finite differences.
inline double loss64(const Problem64& x, const at::Tensor& q, const at::Tensor& k,
                     const at::Tensor& v) {
  const at::Tensor o = at::matmul(probabilities(x, q, k), expand(x, v));
  return (x.dout * o).sum().item<double>();
}

// The float64 backward, written from the calculus (not from the order), and per element the
// magnitude of what its float32 terms add up: |P| times |dP| + |D| + sum|dO||O| + sum|dO||v|.
struct Gradients64 {
  at::Tensor dq, dk, dv, mq, mk, mv;  // heads first, as Problem64
};
inline Gradients64 backward64(const Problem64& x, bool drop_delta = false) {
  const at::Tensor p = probabilities(x, x.q, x.k), ke = expand(x, x.k), ve = expand(x, x.v);
  const at::Tensor o = at::matmul(p, ve), dp = at::matmul(x.dout, ve.transpose(1, 2));
  const at::Tensor delta =
      drop_delta ? at::zeros_like(o.select(-1, 0)).unsqueeze(-1) : (x.dout * o).sum(-1, true);
  const at::Tensor ds = p * (dp - delta);
  Gradients64 g;
  g.dq = at::matmul(ds, ke) * x.scale;
  g.dk = per_kv_head(x, at::matmul(ds.transpose(1, 2), x.q) * x.scale);
  g.dv = per_kv_head(x, at::matmul(p.transpose(1, 2), x.dout));
  const at::Tensor w = p * (dp.abs() + delta.abs() + (x.dout.abs() * o.abs()).sum(-1, true) +
                            at::matmul(x.dout.abs(), ve.abs().transpose(1, 2)));
  g.mq = at::matmul(w, ke.abs()) * x.scale;
  g.mk = per_kv_head(x, at::matmul(w.transpose(1, 2), x.q.abs()) * x.scale);
  g.mv = per_kv_head(x, at::matmul(p.transpose(1, 2), x.dout.abs()));
  return g;
}

inline ::testing::AssertionResult within(const char* what, const at::Tensor& got,
                                         const at::Tensor& ref, const at::Tensor& limit) {
  const at::Tensor excess = (got.to(at::kDouble) - ref).abs() / limit.clamp_min(1e-300);
  const double worst = excess.max().item<double>();
  if (worst <= 1.0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": an error " << worst << " times the bound";
}

}  // namespace samebits
