// C++ entry points of torch.ops.samebits.attention, attention_varlen and attention_with_kvcache:
// the invariant attention over dense, packed and paged inputs, each row's bits its sequence's own.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <optional>

namespace samebits {

struct AttentionOutputs {
  at::Tensor out;  // like q, in q's dtype
  at::Tensor
      lse;  // float32 natural log-sum-exp of the scaled scores: [B, H, Lq] dense, else [H, Tq]
};

// q [B, H, Lq, d], k and v [B, Hkv, Lk, d] (bfloat16 or float16, d in {64, 128, 256}, H a
// multiple of Hkv). The queries are the last Lq of the Lk positions: with causal, query i sees
// keys [0, Lk - Lq + i]. scale defaults to 1 / sqrt(d).
AttentionOutputs invariant_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                     bool causal = true,
                                     std::optional<double> scale = std::nullopt);

// Packed sequences: q [Tq, H, d] with sequence b's queries at rows q_offsets[b] .. q_offsets[b+1],
// k and v [Tk, Hkv, d] with its keys at kv_offsets[b] .. kv_offsets[b+1] (int64 offsets).
// max_q_len and max_kv_len bound every sequence's queries and keys and size the launch; when
// negative, CUDA takes q.size(0) and k.size(0) (pass them for speed), the CPU reads the offsets.
// CUDA metadata never leave the device (SAMEBITS_DEBUG_METADATA=1: checked on the host, raising):
// a sequence whose offsets fall outside q or k, decrease, or exceed a bound is read nowhere, its
// rows of out and lse are NaN, and its flaws (kernels/common/row_guard.h) are OR-ed into status
// (int32, one element, on q's device) when given. CPU metadata are checked on the host.
AttentionOutputs invariant_attention_varlen(const at::Tensor& q, const at::Tensor& k,
                                            const at::Tensor& v, const at::Tensor& q_offsets,
                                            const at::Tensor& kv_offsets,
                                            std::int64_t max_q_len = -1, bool causal = true,
                                            std::optional<double> scale = std::nullopt,
                                            std::int64_t max_kv_len = -1,
                                            const std::optional<at::Tensor>& status = std::nullopt);

// A paged KV cache: k_cache and v_cache [pages, page_size, Hkv, d]; block_table [B, max_pages]
// int32 names sequence b's pages in order; cache_lengths [B] int64 its keys already cached. The
// new tokens' queries q [Tq, H, d] sit at rows q_offsets[b] .. q_offsets[b+1]; k_new and v_new
// [Tq, Hkv, d], when given, are first written into the cache at positions cache_lengths[b] + i.
// Sequence b then attends over cache_lengths[b] + q_len(b) keys, at most max_kv_len (negative:
// max_pages * page_size on CUDA, read from the metadata on the CPU). Guarded as the varlen call
// is; a flawed sequence (a negative cache length, more pages than the table holds, a table entry
// not in [0, pages)) also writes nothing into the caches.
AttentionOutputs invariant_attention_with_kvcache(
    const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
    const at::Tensor& block_table, const at::Tensor& cache_lengths, const at::Tensor& q_offsets,
    const std::optional<at::Tensor>& k_new = std::nullopt,
    const std::optional<at::Tensor>& v_new = std::nullopt, std::int64_t max_q_len = -1,
    bool causal = true, std::optional<double> scale = std::nullopt, std::int64_t max_kv_len = -1,
    const std::optional<at::Tensor>& status = std::nullopt);

}  // namespace samebits
