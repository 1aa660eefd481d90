// Where sequence b's queries, keys, values and outputs are (the formulas in invariant_attention.h),
// shared by the CUDA kernel and its twin so both read and write the same elements.
#pragma once

#include "kernels/attention/invariant_attention.h"

#if defined(__CUDACC__)
#define SAMEBITS_LAYOUT_HD __host__ __device__ __forceinline__
#else
#define SAMEBITS_LAYOUT_HD inline
#endif

namespace samebits::kernels::attention_layout {

// (A sequence the guard flagged has neither queries nor keys: no kernel reads its metadata.)
SAMEBITS_LAYOUT_HD std::int64_t q_len(const AttentionProblem& p, std::int64_t b) {
  if (p.sequence_flaws && p.sequence_flaws[b]) return 0;
  return p.q_offsets ? p.q_offsets[b + 1] - p.q_offsets[b] : p.q_len;
}

SAMEBITS_LAYOUT_HD std::int64_t kv_len(const AttentionProblem& p, std::int64_t b) {
  if (p.sequence_flaws && p.sequence_flaws[b]) return 0;
  if (p.kv_lengths) return p.kv_lengths[b];
  return p.kv_offsets ? p.kv_offsets[b + 1] - p.kv_offsets[b] : p.kv_len;
}

// The element offset of query row i of sequence b (before the head and element terms), for q,
// out and lse alike.
SAMEBITS_LAYOUT_HD std::int64_t row_offset(const AttentionProblem& p, std::int64_t b,
                                           std::int64_t i, std::int64_t seq_stride,
                                           std::int64_t token_stride) {
  return b * seq_stride + ((p.q_offsets ? p.q_offsets[b] : 0) + i) * token_stride;
}

// The element offset of the key (or value) at absolute position t of sequence b.
SAMEBITS_LAYOUT_HD std::int64_t kv_offset(const AttentionProblem& p, std::int64_t b, std::int64_t t,
                                          std::int64_t page_stride, std::int64_t token_stride) {
  if (p.block_table) {
    const std::int64_t page = p.block_table[b * p.block_table_stride + t / p.page_size];
    return page * page_stride + (t % p.page_size) * token_stride;
  }
  return b * page_stride + ((p.kv_offsets ? p.kv_offsets[b] : 0) + t) * token_stride;
}

// The keys query i of a sequence of `rows` queries and `keys` keys sees: [0, n). Under a causal
// mask the queries are the last `rows` positions, so query i sits at keys - rows + i.
SAMEBITS_LAYOUT_HD std::int64_t visible_keys(bool causal, std::int64_t keys, std::int64_t rows,
                                             std::int64_t i) {
  if (!causal) return keys;
  const std::int64_t position = keys - rows + i;
  return position < 0 ? 0 : (position + 1 < keys ? position + 1 : keys);
}

// The keys query i of sequence b sees.
SAMEBITS_LAYOUT_HD std::int64_t visible_keys(const AttentionProblem& p, std::int64_t b,
                                             std::int64_t i) {
  return visible_keys(p.causal, kv_len(p, b), q_len(p, b), i);
}

}  // namespace samebits::kernels::attention_layout
