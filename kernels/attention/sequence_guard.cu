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

// Token rows [first, end) of one append, flattened over (row, head, element), this block's slice.
__device__ void append_rows(const CacheAppend& a, const AttentionProblem& p,
                            const std::int32_t* table, std::int64_t first, std::int64_t end,
                            std::int64_t position0) {
  const std::int64_t d = p.head_dim, per_row = p.kv_heads * d;
  const auto* src = static_cast<const std::uint16_t*>(a.rows);
  auto* dst = static_cast<std::uint16_t*>(a.cache);
  const std::int64_t count = (end - first) * per_row;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.y) * kThreads;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.y) * kThreads + threadIdx.x; e < count;
       e += step) {
    const std::int64_t r = first + e / per_row, h = e % per_row / d, j = e % d;
    const std::int64_t position = position0 + (r - first);
    const std::int64_t page = table[position / p.page_size], slot = position % p.page_size;
    dst[page * a.page_stride + slot * a.token_stride + h * a.head_stride + j] =
        src[r * a.row_token_stride + h * a.row_head_stride + j];
  }
}

__global__ void __launch_bounds__(kThreads)
    guard_sequences(const __grid_constant__ AttentionProblem p, const SequenceGuard g) {
  __shared__ Verdict verdict;
  const std::int64_t b = blockIdx.x;
  if (threadIdx.x == 0) verdict = judge(p, g, b);
  __syncthreads();
  const std::int32_t* table =
      p.block_table ? p.block_table + b * p.block_table_stride : nullptr;  // (row b exists)
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
  const std::int64_t step = static_cast<std::int64_t>(gridDim.y) * kThreads;
  const std::int64_t lane0 = static_cast<std::int64_t>(blockIdx.y) * kThreads + threadIdx.x;
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
  if (!table) return;
  if (g.k_append.cache)
    append_rows(g.k_append, p, table, verdict.q_start, verdict.q_end, verdict.cache_length);
  if (g.v_append.cache)
    append_rows(g.v_append, p, table, verdict.q_start, verdict.q_end, verdict.cache_length);
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
