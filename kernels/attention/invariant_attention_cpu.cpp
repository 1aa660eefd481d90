// The CPU twin of the invariant attention: one query row at a time, split by split, tile by tile,
// in the order of invariant_attention_order.h; the CUDA kernel's bits, for tests and CI.
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/attention/attention_layout.h"
#include "kernels/attention/invariant_attention.h"
#include "kernels/attention/invariant_attention_order.h"
#include "kernels/common/half_bits.h"

namespace samebits::kernels {
namespace {

namespace order = attention_order;
namespace layout = attention_layout;

float load(const void* base, std::int64_t index, DType dtype) {
  const auto* bits = static_cast<const std::uint16_t*>(base);
  return dtype == DType::bf16 ? bfloat16_to_float(bits[index]) : float16_to_float(bits[index]);
}

void store(void* base, std::int64_t index, float value, DType dtype) {
  const std::uint32_t f = float_to_bits(value);
  static_cast<std::uint16_t*>(base)[index] =
      dtype == DType::bf16 ? order::to_bfloat16_bits(f) : order::to_float16_bits(f);
}

// (m, l, acc) of one split: step 2 of the order over the tiles of [begin, end).
struct Partial {
  float m = -INFINITY, l = 0.0f;
  std::vector<float> acc;
};

Partial split_partial(const AttentionProblem& p, std::int64_t b, std::int64_t g,
                      const std::vector<float>& q, float scale_log2, std::int64_t begin,
                      std::int64_t end) {
  const int d = static_cast<int>(p.head_dim);
  Partial s;
  s.acc.assign(d, 0.0f);
  std::vector<float> key(d), values(order::kKeyTile * d);
  float x[order::kKeyTile], prob[order::kKeyTile], leaves[order::kTileSumLeaves];
  for (std::int64_t tile = begin; tile < end; tile += order::kKeyTile) {
    float tile_max = -INFINITY;
    for (int c = 0; c < order::kKeyTile; ++c) {
      const std::int64_t t = tile + c;
      x[c] = -INFINITY;
      if (t >= end) continue;
      const std::int64_t at =
          layout::kv_offset(p, b, t, p.k_page_stride, p.k_token_stride) + g * p.k_head_stride;
      for (int j = 0; j < d; ++j) key[j] = load(p.k, at + j, p.dtype);
      x[c] = order::dot(q.data(), key.data(), d) * scale_log2;
      tile_max = std::fmax(tile_max, x[c]);
    }
    const float m_new = std::fmax(s.m, tile_max) + 0.0f;
    const float alpha = order::rescale(s.m, m_new);
    for (int c = 0; c < order::kKeyTile; ++c) {
      prob[c] = tile + c < end ? order::probability(x[c], m_new) : 0.0f;
    }
    for (int i = 0; i < order::kTileSumLeaves; ++i) leaves[i] = prob[2 * i] + prob[2 * i + 1];
    const float l_tile = order::tile_sum_of_leaves(leaves);
    const float l_scaled = s.l * alpha;
    s.l = l_scaled + l_tile;
    s.m = m_new;
    // The tile's visible values as floats, then pv[j] over c ascending (the order's step 2).
    const int visible =
        static_cast<int>(end - tile < order::kKeyTile ? end - tile : order::kKeyTile);
    for (int c = 0; c < visible; ++c) {
      const std::int64_t at = layout::kv_offset(p, b, tile + c, p.v_page_stride, p.v_token_stride) +
                              g * p.v_head_stride;
      for (int j = 0; j < d; ++j) values[c * d + j] = load(p.v, at + j, p.dtype);
    }
    for (int j = 0; j < d; ++j) {
      float pv = 0.0f;
      for (int c = 0; c < visible; ++c) pv = fmaf(prob[c], values[c * d + j], pv);
      const float scaled = s.acc[j] * alpha;
      s.acc[j] = scaled + pv;
    }
  }
  return s;
}

void attention_row(const AttentionProblem& p, std::int64_t b, std::int64_t i, std::int64_t h) {
  const int d = static_cast<int>(p.head_dim);
  const std::int64_t g = h / (p.heads / p.kv_heads);
  const float scale_log2 = p.scale * order::kLog2e;
  std::vector<float> q(d);
  const std::int64_t q_at =
      layout::row_offset(p, b, i, p.q_seq_stride, p.q_token_stride) + h * p.q_head_stride;
  for (int j = 0; j < d; ++j) q[j] = load(p.q, q_at + j, p.dtype);

  const std::int64_t n = layout::visible_keys(p, b, i);
  Partial run;
  run.acc.assign(d, 0.0f);
  for (std::int64_t split = 0; split < n; split += order::kSplitKeys) {
    const std::int64_t end = split + order::kSplitKeys < n ? split + order::kSplitKeys : n;
    Partial s = split_partial(p, b, g, q, scale_log2, split, end);
    if (split == 0) {
      run = std::move(s);
      continue;
    }
    const order::MergeFactors f = order::merge_factors(run.m, run.l, s.m, s.l);
    for (int j = 0; j < d; ++j) run.acc[j] = order::merge_acc(run.acc[j], s.acc[j], f);
  }
  const std::int64_t out_at =
      layout::row_offset(p, b, i, p.out_seq_stride, p.out_token_stride) + h * p.out_head_stride;
  for (int j = 0; j < d; ++j) store(p.out, out_at + j, order::output(run.acc[j], run.l), p.dtype);
  if (p.lse) {
    p.lse[layout::row_offset(p, b, i, p.lse_seq_stride, p.lse_token_stride) +
          h * p.lse_head_stride] = order::lse(run.m, run.l);
  }
}

}  // namespace

bool attention_head_dim_supported(std::int64_t head_dim) {
  return head_dim == 64 || head_dim == 128 || head_dim == 256;
}

Status attention_problem_check(const AttentionProblem& p) {
  if (p.dtype != DType::bf16 && p.dtype != DType::f16) return Status::unsupported_dtype;
  if (!attention_head_dim_supported(p.head_dim)) return Status::invalid_argument;
  if (p.sequences < 0 || p.sequences > 65535 || p.heads < 1 || p.heads > 65535 || p.kv_heads < 1 ||
      p.heads % p.kv_heads != 0) {
    return Status::invalid_argument;
  }
  if (p.max_q_len < 0 || (!p.q_offsets && p.q_len > p.max_q_len)) return Status::invalid_argument;
  if (p.block_table && p.page_size < 1) return Status::invalid_argument;
  if (p.sequences > 0 && (!p.q || !p.k || !p.v || !p.out)) return Status::invalid_argument;
  return Status::ok;
}

Status invariant_attention_cpu(const AttentionProblem& p) {
  if (const Status s = attention_problem_check(p); s != Status::ok) return s;
  for (std::int64_t b = 0; b < p.sequences; ++b) {
    const std::int64_t rows = layout::q_len(p, b);
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t h = 0; h < p.heads; ++h) attention_row(p, b, i, h);
    }
  }
  return Status::ok;
}

}  // namespace samebits::kernels
