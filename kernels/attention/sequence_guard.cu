// The attention's sequence guard (sequence_guard.h): blocks of one sequence judge its metadata,
// then mark its rows (flawed) or append its new keys and values (sound), each a slice of the rows.
#include <cstdint>

#include "kernels/attention/sequence_guard.h"
#include "kernels/common/cuda_status.h"

namespace samebits::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxSlices = 128;  // blocks per sequence (blockIdx.y), for long appends or marks

struct Verdict {
  std::int32_t flaws;
  std::int64_t q_start, q_end, cache_length, kv_length, pages_used;
};

// Sequence b's flaws, in the order sequence_guard.h lists them; every read inside its tensor.
__device__ Verdict judge(const AttentionProblem& p, const SequenceGuard& g, std::int64_t b) {
  Verdict v{0, p.q_offsets[b], p.q_offsets[b + 1], 0, 0, 0};
  v.flaws = row_flaws(v.q_start, v.q_end, g.q_total, p.max_q_len);
  if (p.kv_offsets) {
    v.flaws |= row_flaws(p.kv_offsets[b], p.kv_offsets[b + 1], g.kv_total, p.max_kv_len);
  } else if (p.block_table) {
    v.cache_length = g.cache_lengths[b];
    if (v.cache_length < 0) v.flaws |= kNegativeCacheLength;
    if (v.flaws) return v;
    const std::int64_t q_len = v.q_end - v.q_start;  // in [0, max_q_len]
    if (v.cache_length > p.max_kv_len - q_len) {     // (no overflow: both terms >= 0 or small)
      v.flaws |= kRowTooLong;
      return v;
    }
    v.kv_length = v.cache_length + q_len;
    v.pages_used = v.kv_length / p.page_size + (v.kv_length % p.page_size != 0);
    if (v.pages_used > p.block_table_stride) v.flaws |= kPagesBeyondTable;
  }
  return v;
}

__device__ std::uint16_t nan_bits(DType dtype) {
  return dtype == DType::bf16 ? std::uint16_t{0x7fc0} : std::uint16_t{0x7e00};
}

// A sound sequence's appends, in words of W (16 bytes where every row allows it, else one
// element): word e of its token rows [first, first + rows) x Hkv x d, in both caches. A thread
// locates and reads its first word before the verdict is known and stores it after.
template <class W>
struct Append {
  static constexpr int kElements = sizeof(W) / 2;
  const AttentionProblem& p;
  const std::int32_t* table;
  std::int64_t first, position0, count;  // count: words per cache
  std::int64_t words, per_row;           // words per head row, per token row

  __device__ Append(const AttentionProblem& problem, const std::int32_t* t, std::int64_t q_start,
                    std::int64_t q_end, std::int64_t cache_length)
      : p(problem), table(t), first(q_start), position0(cache_length) {
    words = p.head_dim / kElements;
    per_row = p.kv_heads * words;
    count = (q_end - q_start) * per_row;
  }
  // Where word e goes in a's cache and where it comes from.
  __device__ void locate(const CacheAppend& a, std::int64_t e, W*& dst, const W*& src) const {
    const std::int64_t r = e / per_row, h = e % per_row / words, j = (e % words) * kElements;
    const std::int64_t position = position0 + r;
    const std::int64_t page = table[position / p.page_size], slot = position % p.page_size;
    dst = reinterpret_cast<W*>(static_cast<std::uint16_t*>(a.cache) + page * a.page_stride +
                               slot * a.token_stride + h * a.head_stride + j);
    src = reinterpret_cast<const W*>(static_cast<const std::uint16_t*>(a.rows) +
                                     (first + r) * a.row_token_stride + h * a.row_head_stride + j);
  }
};

// Whether both appends can move 16-byte words: d, every stride and every base a multiple of 8
// elements (16 bytes).
__device__ bool appends_in_chunks(const AttentionProblem& p, const SequenceGuard& g) {
  bool ok = p.head_dim % 8 == 0;
  for (const CacheAppend* a : {&g.k_append, &g.v_append}) {
    ok = ok && reinterpret_cast<std::uintptr_t>(a->cache) % 16 == 0 &&
         reinterpret_cast<std::uintptr_t>(a->rows) % 16 == 0 && a->page_stride % 8 == 0 &&
         a->token_stride % 8 == 0 && a->head_stride % 8 == 0 && a->row_token_stride % 8 == 0 &&
         a->row_head_stride % 8 == 0;
  }
  return ok;
}

// The guard of sequence b, words of W for its appends.
template <class W>
__device__ void guard_sequence(const AttentionProblem& p, const SequenceGuard& g,
                               const Verdict& verdict, std::int64_t b) {
  const std::int32_t* table =
      p.block_table ? p.block_table + b * p.block_table_stride : nullptr;  // (row b exists)
  const std::int64_t step = static_cast<std::int64_t>(gridDim.y) * kThreads;
  const std::int64_t lane0 = static_cast<std::int64_t>(blockIdx.y) * kThreads + threadIdx.x;
  const bool appends = table && verdict.flaws == 0 && g.k_append.cache;  // (uniform)
  const Append<W> append(p, table, verdict.q_start, verdict.q_end, verdict.cache_length);
  // The thread's first words of both appends, read while the pages are checked: the sequence's
  // pages are within its table (verdict), so these reads are too; nothing is written yet.
  W* k_dst = nullptr;
  W* v_dst = nullptr;
  W k_word{}, v_word{};
  if (appends && lane0 < append.count) {
    const W *k_src, *v_src;
    append.locate(g.k_append, lane0, k_dst, k_src);
    append.locate(g.v_append, lane0, v_dst, v_src);
    k_word = *k_src;
    v_word = *v_src;
  }
  // The pages a sound paged sequence uses, all threads at once: each must be in the cache.
  bool outside = false;
  if (table && verdict.flaws == 0) {  // (uniform across the block)
    for (std::int64_t s = threadIdx.x; s < verdict.pages_used; s += kThreads)
      outside = outside || table[s] < 0 || table[s] >= g.pages;
  }
  const bool any_outside = __syncthreads_or(outside);
  const std::int32_t flaws = verdict.flaws | (any_outside ? kPageOutside : 0);
  if (blockIdx.y == 0 && threadIdx.x == 0) {
    g.flaws[b] = flaws;
    if (g.kv_lengths) g.kv_lengths[b] = flaws ? 0 : verdict.kv_length;
    if (flaws && g.status) atomicOr(g.status, flaws);
  }
  if (flaws) {
    if (!g.mark || verdict.q_end < verdict.q_start) return;
    const std::int64_t first = verdict.q_start < 0 ? 0 : verdict.q_start;
    const std::int64_t end = verdict.q_end < g.q_total ? verdict.q_end : g.q_total;
    if (first >= end) return;
    const std::int64_t d = p.head_dim, per_row = p.heads * d;
    auto* out = static_cast<std::uint16_t*>(p.out);
    const std::uint16_t nan = nan_bits(p.dtype);
    for (std::int64_t e = lane0; e < (end - first) * per_row; e += step) {
      const std::int64_t r = first + e / per_row, h = e % per_row / d, j = e % d;
      out[r * p.out_token_stride + h * p.out_head_stride + j] = nan;
    }
    if (p.lse) {
      for (std::int64_t e = lane0; e < (end - first) * p.heads; e += step) {
        const std::int64_t r = first + e / p.heads, h = e % p.heads;
        p.lse[r * p.lse_token_stride + h * p.lse_head_stride] = __int_as_float(0x7fc00000);
      }
    }
    return;
  }
  if (!appends) return;
  if (k_dst) {
    *k_dst = k_word;
    *v_dst = v_word;
  }
  for (std::int64_t e = lane0 + step; e < append.count; e += step) {
    W *k_to, *v_to;
    const W *k_from, *v_from;
    append.locate(g.k_append, e, k_to, k_from);
    append.locate(g.v_append, e, v_to, v_from);
    *k_to = *k_from;
    *v_to = *v_from;
  }
}

__global__ void __launch_bounds__(kThreads)
    guard_sequences(const __grid_constant__ AttentionProblem p, const SequenceGuard g) {
  __shared__ Verdict verdict;
  const std::int64_t b = blockIdx.x;
  if (threadIdx.x == 0) verdict = judge(p, g, b);
  __syncthreads();
  const Verdict v = verdict;
  if (appends_in_chunks(p, g)) {
    guard_sequence<uint4>(p, g, v, b);
  } else {
    guard_sequence<std::uint16_t>(p, g, v, b);
  }
}

}  // namespace

Status attention_sequence_guard_cuda(const AttentionProblem& p, const SequenceGuard& g,
                                     cudaStream_t stream) {
  if (!g.flaws || !p.q_offsets || p.sequences < 0 || p.sequences > 65535 || p.max_q_len < 0 ||
      p.max_kv_len < 0 || p.heads < 1 || p.kv_heads < 1 || p.head_dim < 1 || g.q_total < 0)
    return Status::invalid_argument;
  if (p.dtype != DType::bf16 && p.dtype != DType::f16) return Status::unsupported_dtype;
  if (p.block_table && (!g.cache_lengths || p.page_size <= 0 || p.block_table_stride < 0))
    return Status::invalid_argument;
  if (g.mark && !p.out) return Status::invalid_argument;
  if (p.sequences == 0) return Status::ok;
  // Slices per sequence: one per 64k elements the longest sound sequence may append or mark.
  const std::int64_t width = p.heads > p.kv_heads ? p.heads : p.kv_heads;
  std::int64_t slices = (p.max_q_len * width * p.head_dim + 65535) / 65536;
  if (slices < 1) slices = 1;
  if (slices > kMaxSlices) slices = kMaxSlices;
  const dim3 grid(static_cast<unsigned>(p.sequences), static_cast<unsigned>(slices));
  guard_sequences<<<grid, kThreads, 0, stream>>>(p, g);
  return launch_status();
}

}  // namespace samebits::kernels
