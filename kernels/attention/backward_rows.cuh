// What a thread of either tensor-core attention backward (mma.sync or wgmma) needs of its rows:
// where a row lies, its lse and D, and the P and dS of a (query, key) pair in the order's lines.
#pragma once

#include <cstdint>

#include "kernels/attention/attention_layout.h"
#include "kernels/attention/element_access.cuh"
#include "kernels/attention/invariant_attention_backward.h"
#include "kernels/attention/invariant_attention_backward_order.h"
#include "kernels/common/mma_instructions.cuh"

namespace samebits::kernels::backward_rows {

// What a thread needs of query row i (head h) of sequence b: lse * log2e, D and its visible keys
// (0, and zeros, for a row past the sequence's end). 16 bytes: one shared-memory load.
struct alignas(16) RowFacts {
  float lse2 = 0.0f, delta = 0.0f;
  int visible = 0, unused = 0;
};
__device__ __forceinline__ RowFacts row_facts(const AttentionBackwardProblem& bp, std::int64_t b,
                                              std::int64_t i, std::int64_t h) {
  namespace layout = attention_layout;
  const AttentionProblem& p = bp.forward;
  RowFacts f;
  if (i >= layout::q_len(p, b)) return f;
  f.lse2 = attention_backward_order::lse_log2(
      p.lse[layout::row_offset(p, b, i, p.lse_seq_stride, p.lse_token_stride) +
            h * p.lse_head_stride]);
  f.delta = bp.delta[attention_elements::delta_index(p, b, i, h)];
  f.visible = static_cast<int>(layout::visible_keys(p, b, i));
  return f;
}

// P and dS of one (query, key) pair from its score and dP (the order's tensor-core lines); both
// +0 where the query does not see the key. The two halves apart, for a block that computes P
// while dP is still on the tensor cores.
__device__ __forceinline__ float pair_probability(bool seen, float s, float scale_log2,
                                                  const RowFacts& f) {
  return seen ? tensor_core::exp2_mufu(fmaf(s, scale_log2, -f.lse2)) : 0.0f;
}
__device__ __forceinline__ float pair_score_gradient(bool seen, float p, float dp,
                                                     const RowFacts& f) {
  return seen ? attention_backward_order::score_gradient(p, dp, f.delta) : 0.0f;
}
struct PairGrad {
  float p, ds;
};
__device__ __forceinline__ PairGrad pair_grad(bool seen, float s, float dp, float scale_log2,
                                              const RowFacts& f) {
  const float p = pair_probability(seen, s, scale_log2, f);
  return {p, pair_score_gradient(seen, p, dp, f)};
}

// Two accumulators times `scale`, rounded to the input type, as one 32-bit store.
template <DType T>
__device__ __forceinline__ void store_pair(void* base, std::int64_t at, float a, float c,
                                           float scale) {
  *reinterpret_cast<std::uint32_t*>(static_cast<std::uint16_t*>(base) + at) =
      tensor_core::pack_pair<T>(a * scale, c * scale);
}

// Where row r of a tile lies in one head of a query-indexed tensor (q, dout: row first + r of
// head `head`; Keys false) or a key-indexed one (k, v: key first + r of KV head `head`; Keys
// true), for the tile copies; -1 past the sequence's `count` rows or keys.
template <bool Keys>
struct HeadRows {
  const AttentionProblem& p;
  std::int64_t b, first, count, head, outer_stride, token_stride, head_stride;
  __device__ std::int64_t operator()(int r) const {
    namespace layout = attention_layout;
    const std::int64_t i = first + r;
    if (i >= count) return -1;
    return (Keys ? layout::kv_offset(p, b, i, outer_stride, token_stride)
                 : layout::row_offset(p, b, i, outer_stride, token_stride)) +
           head * head_stride;
  }
};
using QueryRows = HeadRows<false>;
using KeyRows = HeadRows<true>;

// The gradients of a thread's two fragment rows (16 r0 + lane / 4, + 8; columns 8 nb + 2 (lane %
// 4), + 1), times `scale`, for rows below `count`: at(row) is the row's first element.
template <DType T, int NB, class At>
__device__ __forceinline__ void store_rows(void* out, const float (&acc)[NB][4], std::int64_t row0,
                                           std::int64_t count, int lane, float scale, At at) {
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const std::int64_t r = row0 + 8 * half;
    if (r >= count) continue;
    const std::int64_t base = at(r);
#pragma unroll
    for (int nb = 0; nb < NB; ++nb)
      store_pair<T>(out, base + nb * 8 + 2 * (lane % 4), acc[nb][2 * half], acc[nb][2 * half + 1],
                    scale);
  }
}

}  // namespace samebits::kernels::backward_rows
