// The CPU twin of the attention backward: per sequence, dQ row by row over keys ascending, then
// dK/dV key by key over (head, query) ascending, in invariant_attention_backward_order.h's order.
#include <cstdint>
#include <vector>

#include "kernels/attention/attention_layout.h"
#include "kernels/attention/invariant_attention_backward.h"
#include "kernels/attention/invariant_attention_backward_order.h"
#include "kernels/common/half_bits.h"

namespace samebits::kernels {
namespace {

namespace order = attention_order;
namespace border = attention_backward_order;
namespace layout = attention_layout;

// d elements from `at` of a 16-bit tensor, as floats, into `to`.
void load_row(const void* base, std::int64_t at, int d, DType dtype, float* to) {
  const auto* bits = static_cast<const std::uint16_t*>(base) + at;
  for (int j = 0; j < d; ++j)
    to[j] = dtype == DType::bf16 ? bfloat16_to_float(bits[j]) : float16_to_float(bits[j]);
}

// acc[j] * scale rounded to the input type, into d elements from `at`.
void store_row(void* base, std::int64_t at, int d, DType dtype, const float* acc, float scale) {
  auto* bits = static_cast<std::uint16_t*>(base) + at;
  for (int j = 0; j < d; ++j) {
    const std::uint32_t f = float_to_bits(acc[j] * scale);
    bits[j] = dtype == DType::bf16 ? order::to_bfloat16_bits(f) : order::to_float16_bits(f);
  }
}

// One sequence's inputs as floats: per (row, head) q, dO, D, lse * log2e and the visible keys;
// per (key, KV head) k and v.
struct Sequence {
  std::int64_t rows = 0, keys = 0;
  std::vector<float> q, dout, delta, lse2, k, v;
  std::vector<std::int64_t> visible;
};

Sequence load_sequence(const AttentionBackwardProblem& bp, std::int64_t b) {
  const AttentionProblem& p = bp.forward;
  const int d = static_cast<int>(p.head_dim);
  Sequence s;
  s.rows = layout::q_len(p, b);
  s.keys = layout::kv_len(p, b);
  s.q.resize(s.rows * p.heads * d);
  s.dout.resize(s.q.size());
  s.delta.resize(s.rows * p.heads);
  s.lse2.resize(s.delta.size());
  s.visible.resize(s.rows);
  std::vector<float> out(d);
  for (std::int64_t i = 0; i < s.rows; ++i) {
    s.visible[i] = layout::visible_keys(p, b, i);
    for (std::int64_t h = 0; h < p.heads; ++h) {
      const std::int64_t r = i * p.heads + h;
      load_row(p.q,
               layout::row_offset(p, b, i, p.q_seq_stride, p.q_token_stride) + h * p.q_head_stride,
               d, p.dtype, &s.q[r * d]);
      load_row(bp.dout,
               layout::row_offset(p, b, i, bp.dout_seq_stride, bp.dout_token_stride) +
                   h * bp.dout_head_stride,
               d, p.dtype, &s.dout[r * d]);
      load_row(
          p.out,
          layout::row_offset(p, b, i, p.out_seq_stride, p.out_token_stride) + h * p.out_head_stride,
          d, p.dtype, out.data());
      s.delta[r] = border::row_delta(&s.dout[r * d], out.data(), d);
      s.lse2[r] =
          border::lse_log2(p.lse[layout::row_offset(p, b, i, p.lse_seq_stride, p.lse_token_stride) +
                                 h * p.lse_head_stride]);
    }
  }
  s.k.resize(s.keys * p.kv_heads * d);
  s.v.resize(s.k.size());
  for (std::int64_t t = 0; t < s.keys; ++t) {
    for (std::int64_t g = 0; g < p.kv_heads; ++g) {
      const std::int64_t r = (t * p.kv_heads + g) * d;
      load_row(p.k,
               layout::kv_offset(p, b, t, p.k_page_stride, p.k_token_stride) + g * p.k_head_stride,
               d, p.dtype, &s.k[r]);
      load_row(p.v,
               layout::kv_offset(p, b, t, p.v_page_stride, p.v_token_stride) + g * p.v_head_stride,
               d, p.dtype, &s.v[r]);
    }
  }
  return s;
}

// P and dS of query row i, head h (r = i * heads + h) against key t of KV head g.
struct Pair {
  float p, ds;
};
Pair pair(const Sequence& s, const AttentionProblem& p, std::int64_t r, std::int64_t t,
          std::int64_t g, float scale_log2) {
  const int d = static_cast<int>(p.head_dim);
  const std::int64_t kv = (t * p.kv_heads + g) * d;
  const float x = order::dot(&s.q[r * d], &s.k[kv], d) * scale_log2;
  const float prob = border::probability_from_lse(x, s.lse2[r]);
  const float dp = order::dot(&s.dout[r * d], &s.v[kv], d);
  return {prob, border::score_gradient(prob, dp, s.delta[r])};
}

void backward_sequence(const AttentionBackwardProblem& bp, std::int64_t b) {
  const AttentionProblem& p = bp.forward;
  const int d = static_cast<int>(p.head_dim);
  const std::int64_t group = p.heads / p.kv_heads;
  const float scale_log2 = p.scale * order::kLog2e;
  const Sequence s = load_sequence(bp, b);
  std::vector<float> acc(d), acc_v(d);
  for (std::int64_t i = 0; i < s.rows; ++i) {  // dQ_i: keys ascending
    for (std::int64_t h = 0; h < p.heads; ++h) {
      const std::int64_t r = i * p.heads + h, g = h / group;
      acc.assign(d, 0.0f);
      for (std::int64_t t = 0; t < s.visible[i]; ++t) {
        const float ds = pair(s, p, r, t, g, scale_log2).ds;
        const float* key = &s.k[(t * p.kv_heads + g) * d];
        for (int j = 0; j < d; ++j) acc[j] = fmaf(ds, key[j], acc[j]);
      }
      store_row(
          bp.dq,
          layout::row_offset(p, b, i, bp.dq_seq_stride, bp.dq_token_stride) + h * bp.dq_head_stride,
          d, p.dtype, acc.data(), p.scale);
    }
  }
  for (std::int64_t t = 0; t < s.keys; ++t) {  // dK_t, dV_t: (head, query) ascending
    for (std::int64_t g = 0; g < p.kv_heads; ++g) {
      acc.assign(d, 0.0f);
      acc_v.assign(d, 0.0f);
      for (std::int64_t h = g * group; h < (g + 1) * group; ++h) {
        for (std::int64_t i = 0; i < s.rows; ++i) {
          if (t >= s.visible[i]) continue;
          const std::int64_t r = i * p.heads + h;
          const Pair pr = pair(s, p, r, t, g, scale_log2);
          for (int j = 0; j < d; ++j) {
            acc[j] = fmaf(pr.ds, s.q[r * d + j], acc[j]);
            acc_v[j] = fmaf(pr.p, s.dout[r * d + j], acc_v[j]);
          }
        }
      }
      store_row(
          bp.dk,
          layout::kv_offset(p, b, t, bp.dk_seq_stride, bp.dk_token_stride) + g * bp.dk_head_stride,
          d, p.dtype, acc.data(), p.scale);
      store_row(
          bp.dv,
          layout::kv_offset(p, b, t, bp.dv_seq_stride, bp.dv_token_stride) + g * bp.dv_head_stride,
          d, p.dtype, acc_v.data(), 1.0f);
    }
  }
}

}  // namespace

Status attention_backward_check(const AttentionBackwardProblem& bp) {
  const AttentionProblem& p = bp.forward;
  if (const Status s = attention_problem_check(p); s != Status::ok) return s;
  if (p.block_table) return Status::invalid_argument;
  if (p.sequences > 0 && (!p.lse || !bp.dout || !bp.dq || !bp.dk || !bp.dv))
    return Status::invalid_argument;
  return Status::ok;
}

std::int64_t attention_backward_delta_floats(const AttentionBackwardProblem& bp) {
  return bp.forward.sequences * bp.forward.max_q_len * bp.forward.heads;
}

Status invariant_attention_backward_cpu(const AttentionBackwardProblem& bp) {
  if (const Status s = attention_backward_check(bp); s != Status::ok) return s;
  for (std::int64_t b = 0; b < bp.forward.sequences; ++b) backward_sequence(bp, b);
  return Status::ok;
}

}  // namespace samebits::kernels
