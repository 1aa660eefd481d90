// The attention's sequence guard on CUDA: one launch that judges each packed or paged sequence's
// metadata on the device, flags the ones no kernel may read, marks their rows, appends the rest's.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/attention/invariant_attention.h"
#include "kernels/common/row_guard.h"
#include "kernels/common/status.h"

namespace samebits::kernels {

// One cache written by the append: token r of a sound sequence b (row r of `rows`, [Tq, Hkv, d])
// goes to position cache_lengths[b] + r - q_offsets[b] of b's pages in `cache`.
struct CacheAppend {
  void* cache = nullptr;  // [pages, page_size, Hkv, d]
  std::int64_t page_stride = 0, token_stride = 0, head_stride = 0;
  const void* rows = nullptr;  // [Tq, Hkv, d]
  std::int64_t row_token_stride = 0, row_head_stride = 0;
};

// What the guard needs beyond the problem, whose q_offsets, kv_offsets, block_table, page_size,
// block_table_stride, max_q_len, max_kv_len, heads, kv_heads, head_dim, dtype, out and lse (and
// their strides) it reads. Sequence b is flawed (kernels/common/row_guard.h's bits) when:
//  - its queries [q_offsets[b], q_offsets[b + 1]) fall outside [0, q_total], decrease, or number
//    more than max_q_len;
//  - packed keys: [kv_offsets[b], kv_offsets[b + 1]) likewise against kv_total and max_kv_len;
//  - paged keys: cache_lengths[b] < 0 (kNegativeCacheLength), cache_lengths[b] + q_len(b) above
//    max_kv_len (kRowTooLong), more pages than block_table_stride (kPagesBeyondTable), or a block
//    table entry among the pages it uses outside [0, pages) (kPageOutside).
// A flawed sequence is read nowhere and written nowhere in the caches; its rows of out in
// [0, q_total) (when its query offsets do not decrease) are NaN in every head and element, and so
// are their lse. (Rows two sequences share, possible only once a sequence decreases, are written
// by both.) A sound sequence's bits are those it has alone.
struct SequenceGuard {
  std::int32_t* flaws = nullptr;   // [p.sequences], written (0: sound); the kernels' sequence_flaws
  std::int32_t* status = nullptr;  // optional: every flaw OR-ed in (never cleared)
  std::int64_t q_total = 0;        // rows of q and of out
  std::int64_t kv_total = 0;       // rows of k and v (packed keys)
  // Paged keys: kv_len(b) = cache_lengths[b] + q_len(b), written to kv_lengths [p.sequences]
  // (0 for a flawed sequence; the kernels' kv_lengths), over a cache of `pages` pages.
  const std::int64_t* cache_lengths = nullptr;
  std::int64_t* kv_lengths = nullptr;
  std::int64_t pages = 0;
  bool mark = true;  // false: flags only (the backward, whose out is an input)
  // Paged only, optional, both or neither (k_append.cache nullptr: none): the new tokens' keys
  // and values, written before any kernel reads the caches.
  CacheAppend k_append, v_append;
};

// Runs the guard over p's sequences on `stream` (the launches over p follow it on that stream).
Status attention_sequence_guard_cuda(const AttentionProblem& p, const SequenceGuard& g,
                                     cudaStream_t stream);

}  // namespace samebits::kernels
