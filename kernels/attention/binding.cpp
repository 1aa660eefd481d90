// The torch face of the invariant attention: checks tensors (naming the argument and what it
// accepts), fills one AttentionProblem per layout, runs the CPU twin or the CUDA kernel, and
// registers torch.ops.samebits.attention, attention_varlen and attention_with_kvcache.
#include "kernels/attention/binding.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "kernels/attention/autograd.h"
#include "kernels/attention/backward_binding.h"
#include "kernels/attention/binding_arguments.h"
#include "kernels/attention/invariant_attention.h"
#include "kernels/common/binding_support.h"

namespace samebits {
namespace {

namespace k = kernels;
using attention_checks::algorithm_for;
using attention_checks::attention_dtype;
using attention_checks::check_heads;
using attention_checks::like_q;
using attention_checks::offsets_on;
using attention_checks::packed_queries;
using attention_checks::rows_aligned;
using attention_checks::softmax_scale;

// A split or border workspace is worth at most this much (either only makes a launch faster, never
// different: beyond it, the launch runs without).
constexpr std::int64_t kWorkspaceFloats = std::int64_t{1} << 28;  // 1 GiB

AttentionOutputs run(k::AttentionProblem& p, const at::Tensor& q, at::Tensor out, at::Tensor lse,
                     const char* op) {
  p.out = out.mutable_data_ptr();
  p.lse = lse.mutable_data_ptr<float>();
  if (q.is_cuda()) {
    const c10::cuda::CUDAGuard guard(q.device());
    at::Tensor workspace, border;
    const std::int64_t floats = k::attention_split_workspace_floats(p);
    const int sms = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
    if (k::attention_prefers_split_launch(p, sms) && floats <= kWorkspaceFloats) {
      workspace = at::empty({floats}, q.options().dtype(at::kFloat));
      p.workspace = workspace.mutable_data_ptr<float>();
      p.workspace_floats = floats;
    }
    const std::int64_t border_floats = k::attention_border_workspace_floats(p);
    if (!p.workspace && border_floats > 0 && border_floats <= kWorkspaceFloats) {
      border = at::empty({border_floats}, q.options().dtype(at::kFloat));
      p.border_workspace = border.mutable_data_ptr<float>();
      p.border_workspace_floats = border_floats;
    }
    at::Tensor turns;  // the persistent prefill's turn counter, zeroed on the stream
    if (k::attention_takes_turns(p)) {
      turns = at::zeros({1}, q.options().dtype(at::kLong));
      p.turn_counter =
          reinterpret_cast<unsigned long long*>(turns.mutable_data_ptr<std::int64_t>());
    }
    check_kernel_status(k::invariant_attention_cuda(p, at::cuda::getCurrentCUDAStream()), op);
  } else {
    TORCH_CHECK(q.is_cpu(), "samebits.", op, " runs on CPU or CUDA tensors, not ", q.device());
    check_kernel_status(k::invariant_attention_cpu(p), op);
  }
  return {out, lse};
}

// A packed call's outputs: out [Tq, H, d] like q, lse [H, Tq], their pointers and strides in p
// (set before the guard, which marks a flawed sequence's rows in them).
AttentionOutputs packed_outputs(k::AttentionProblem& p, const at::Tensor& q) {
  at::Tensor out = at::empty(q.sizes(), q.options());
  at::Tensor lse = at::empty({q.size(1), q.size(0)}, q.options().dtype(at::kFloat));
  p.out = out.mutable_data_ptr();
  p.lse = lse.mutable_data_ptr<float>();
  p.out_token_stride = q.size(1) * q.size(2);
  p.out_head_stride = q.size(2);
  p.lse_token_stride = 1;
  p.lse_head_stride = q.size(0);
  return {out, lse};
}

// The paged metadata checked on the host (CPU tensors, or CUDA in SAMEBITS_DEBUG_METADATA mode,
// a sync there): every cache length >= 0, every page a sequence reaches in block_table and in the
// cache, its keys within max_kv_len when given (>= 0). Returns the longest sequence's keys.
std::int64_t checked_pages(const at::Tensor& q_offsets, const at::Tensor& cache_lengths,
                           const at::Tensor& block_table, std::int64_t pages,
                           std::int64_t page_size, std::int64_t max_kv_len, const char* op) {
  if (q_offsets.is_cuda()) {
    const c10::cuda::CUDAGuard guard(q_offsets.device());
    TORCH_CHECK(
        c10::cuda::currentStreamCaptureStatusMayInitCtx() == c10::cuda::CaptureStatus::None,
        "samebits.", op,
        ": SAMEBITS_DEBUG_METADATA copies the metadata to the host, which a CUDA graph capture "
        "does not allow; unset it to capture");
  }
  const at::Tensor offsets = q_offsets.cpu(), cached = cache_lengths.cpu(),
                   table = block_table.cpu();
  const auto* off = offsets.const_data_ptr<std::int64_t>();
  const auto* had = cached.const_data_ptr<std::int64_t>();
  const auto* t = table.const_data_ptr<std::int32_t>();
  const std::int64_t slots = block_table.size(1);
  std::int64_t longest = 0;
  for (std::int64_t b = 0; b + 1 < offsets.numel(); ++b) {
    TORCH_CHECK(had[b] >= 0, "samebits.", op, ": cache_lengths[", b, "] = ", had[b],
                " is negative");
    const std::int64_t len = had[b] + (off[b + 1] - off[b]);  // (offsets checked to rise)
    TORCH_CHECK(max_kv_len < 0 || len <= max_kv_len, "samebits.", op, ": sequence ", b, " has ",
                len, " keys, above max_kv_len = ", max_kv_len);
    longest = std::max(longest, len);
    const std::int64_t used = (len + page_size - 1) / page_size;
    TORCH_CHECK(used <= slots, "samebits.", op, ": sequence ", b, " needs ", used, " pages of ",
                page_size, " for ", len, " keys; block_table has ", slots);
    for (std::int64_t s = 0; s < used; ++s) {
      TORCH_CHECK(t[b * slots + s] >= 0 && t[b * slots + s] < pages, "samebits.", op,
                  ": block_table[", b, "][", s, "] = ", t[b * slots + s],
                  " is not a page of k_cache (0 .. ", pages - 1, ")");
    }
  }
  return longest;
}

// One cache's side of the guarded append (k_new or v_new into k_cache or v_cache).
k::CacheAppend cache_append(const at::Tensor& cache, const at::Tensor& rows) {
  k::CacheAppend a;
  a.cache = cache.mutable_data_ptr();
  a.page_stride = cache.stride(0);
  a.token_stride = cache.stride(1);
  a.head_stride = cache.stride(2);
  a.rows = rows.const_data_ptr();
  a.row_token_stride = rows.stride(0);
  a.row_head_stride = rows.stride(1);
  return a;
}

}  // namespace

AttentionOutputs invariant_attention(const at::Tensor& q_in, const at::Tensor& k_in,
                                     const at::Tensor& v_in, bool causal,
                                     std::optional<double> scale) {
  const char* op = "attention";
  TORCH_CHECK(q_in.dim() == 4 && k_in.dim() == 4 && v_in.dim() == 4, "samebits.", op,
              ": q, k and v must be [B, H, L, d], got ", q_in.sizes(), ", ", k_in.sizes(), ", ",
              v_in.sizes());
  const k::DType dtype = attention_dtype(q_in, op);
  const k::AttentionAlgorithm algorithm = algorithm_for(q_in, q_in.size(3), scale);
  const at::Tensor q = rows_aligned(q_in.stride(-1) == 1 ? q_in : q_in.contiguous(), algorithm);
  const at::Tensor kk = rows_aligned(like_q(k_in, "k", q, op), algorithm);
  const at::Tensor v = rows_aligned(like_q(v_in, "v", q, op), algorithm);
  k::AttentionProblem p;
  p.dtype = dtype;
  p.algorithm = algorithm;
  p.scale = softmax_scale(scale, q.size(3));
  p.causal = causal;
  attention_checks::dense_inputs(p, q, kk, v, op);
  const std::int64_t batch = q.size(0), heads = q.size(1), lq = q.size(2), d = q.size(3);
  at::Tensor out = at::empty({batch, heads, lq, d}, q.options());
  at::Tensor lse = at::empty({batch, heads, lq}, q.options().dtype(at::kFloat));
  p.out_seq_stride = heads * lq * d;
  p.out_head_stride = lq * d;
  p.out_token_stride = d;
  p.lse_seq_stride = heads * lq;
  p.lse_head_stride = lq;
  p.lse_token_stride = 1;
  return run(p, q, out, lse, op);
}

AttentionOutputs invariant_attention_varlen(const at::Tensor& q_in, const at::Tensor& k_in,
                                            const at::Tensor& v_in, const at::Tensor& q_offsets_in,
                                            const at::Tensor& kv_offsets_in, std::int64_t max_q_len,
                                            bool causal, std::optional<double> scale,
                                            std::int64_t max_kv_len,
                                            const std::optional<at::Tensor>& status) {
  const char* op = "attention_varlen";
  TORCH_CHECK(q_in.dim() == 3 && k_in.dim() == 3 && v_in.dim() == 3, "samebits.", op,
              ": q must be [Tq, H, d] and k, v [Tk, Hkv, d], got ", q_in.sizes(), ", ",
              k_in.sizes(), ", ", v_in.sizes());
  const k::DType dtype = attention_dtype(q_in, op);
  const k::AttentionAlgorithm algorithm = algorithm_for(q_in, q_in.size(2), scale);
  const at::Tensor q = rows_aligned(q_in.stride(-1) == 1 ? q_in : q_in.contiguous(), algorithm);
  const at::Tensor kk = rows_aligned(like_q(k_in, "k", q, op), algorithm);
  const at::Tensor v = rows_aligned(like_q(v_in, "v", q, op), algorithm);
  k::AttentionProblem p;
  p.dtype = dtype;
  p.algorithm = algorithm;
  p.scale = softmax_scale(scale, q.size(2));
  p.causal = causal;
  std::int32_t* word = status_word(status, q, op);
  const AttentionOutputs o = packed_outputs(p, q);
  const attention_checks::PackedOffsets kept = attention_checks::packed_inputs(
      p, q, kk, v, q_offsets_in, kv_offsets_in, max_q_len, op, max_kv_len, word, true);
  return run(p, q, o.out, o.lse, op);
}

AttentionOutputs invariant_attention_with_kvcache(
    const at::Tensor& q_in, const at::Tensor& k_cache, const at::Tensor& v_cache,
    const at::Tensor& block_table_in, const at::Tensor& cache_lengths_in,
    const at::Tensor& q_offsets_in, const std::optional<at::Tensor>& k_new,
    const std::optional<at::Tensor>& v_new, std::int64_t max_q_len, bool causal,
    std::optional<double> scale, std::int64_t max_kv_len, const std::optional<at::Tensor>& status) {
  const char* op = "attention_with_kvcache";
  TORCH_CHECK(q_in.dim() == 3 && k_cache.dim() == 4 && v_cache.dim() == 4, "samebits.", op,
              ": q must be [Tq, H, d] and k_cache, v_cache [pages, page_size, Hkv, d], got ",
              q_in.sizes(), ", ", k_cache.sizes(), ", ", v_cache.sizes());
  const k::DType dtype = attention_dtype(q_in, op);
  const k::AttentionAlgorithm algorithm = algorithm_for(q_in, q_in.size(2), scale);
  const at::Tensor q = rows_aligned(q_in.stride(-1) == 1 ? q_in : q_in.contiguous(), algorithm);
  TORCH_CHECK(k_cache.stride(-1) == 1 && v_cache.stride(-1) == 1, "samebits.", op,
              ": k_cache and v_cache must have a contiguous last dim (they are written in place)");
  like_q(k_cache, "k_cache", q, op);
  like_q(v_cache, "v_cache", q, op);
  TORCH_CHECK(k_cache.sizes() == v_cache.sizes(), "samebits.", op,
              ": k_cache and v_cache must have the same shape, got ", k_cache.sizes(), " and ",
              v_cache.sizes());
  check_heads(q.size(1), k_cache.size(2), q.size(2), k_cache.size(3), v_cache.size(3), op);
  TORCH_CHECK(k_cache.size(1) >= 1, "samebits.", op,
              ": k_cache and v_cache need a page size (dim 1) of at least 1, got ",
              k_cache.sizes());
  const std::int64_t sequences = q_offsets_in.numel() - 1;
  TORCH_CHECK(sequences >= 0 && sequences <= 65535, "samebits.", op,
              ": q_offsets must hold B + 1 entries with B in [0, 65535], got ",
              q_offsets_in.numel());
  const at::Tensor q_offsets = offsets_on(q_offsets_in, "q_offsets", sequences, q, op);
  TORCH_CHECK(block_table_in.scalar_type() == at::kInt && block_table_in.dim() == 2 &&
                  block_table_in.size(0) == sequences && block_table_in.device() == q.device(),
              "samebits.", op, ": block_table must be int32 [B, max_pages] on q's device, got ",
              block_table_in.scalar_type(), " ", block_table_in.sizes(), " on ",
              block_table_in.device());
  TORCH_CHECK(cache_lengths_in.scalar_type() == at::kLong && cache_lengths_in.dim() == 1 &&
                  cache_lengths_in.numel() == sequences && cache_lengths_in.device() == q.device(),
              "samebits.", op, ": cache_lengths must be int64 [B] on q's device, got ",
              cache_lengths_in.scalar_type(), " ", cache_lengths_in.sizes());
  TORCH_CHECK(k_new.has_value() == v_new.has_value(), "samebits.", op,
              ": give k_new and v_new together, or neither");
  if (k_new) {
    for (const at::Tensor* x : {&*k_new, &*v_new}) {
      TORCH_CHECK(x->dim() == 3 && x->size(0) == q.size(0) && x->size(1) == k_cache.size(2) &&
                      x->size(2) == k_cache.size(3) && x->scalar_type() == q.scalar_type() &&
                      x->device() == q.device(),
                  "samebits.", op, ": k_new and v_new must be [Tq, Hkv, d] = [", q.size(0), ", ",
                  k_cache.size(2), ", ", k_cache.size(3), "] like q, got ", x->sizes());
    }
  }
  std::int32_t* word = status_word(status, q, op);
  const at::Tensor block_table = block_table_in.contiguous();
  const at::Tensor cache_lengths = cache_lengths_in.contiguous();
  const std::int64_t pages = k_cache.size(0), page_size = k_cache.size(1);
  // The bounds that size the launch: given, else q.size(0) and the block table's reach on CUDA
  // (no copy to the host; the guard judges every sequence against them on the device), else
  // read from the metadata, checked on the host (CPU, or the debug mode) with their messages.
  max_q_len = longest_row_bound(q_offsets, q.size(0), "q.size(0)", max_q_len, q.size(0), op);
  std::int64_t kv_bound = max_kv_len >= 0 ? max_kv_len : block_table.size(1) * page_size;
  if (!q.is_cuda() || debug_metadata()) {
    const std::int64_t longest =
        checked_pages(q_offsets, cache_lengths, block_table, pages, page_size, max_kv_len, op);
    if (max_kv_len < 0) kv_bound = longest;
  }
  k::AttentionProblem p;
  p.dtype = dtype;
  p.algorithm = algorithm;
  p.kv_heads = k_cache.size(2);
  p.scale = softmax_scale(scale, q.size(2));
  p.causal = causal;
  attention_checks::packed_queries(p, q, q_offsets, max_q_len);
  p.max_kv_len = kv_bound;
  p.block_table = block_table.const_data_ptr<std::int32_t>();
  p.block_table_stride = block_table.size(1);
  p.page_size = page_size;
  const AttentionOutputs o = packed_outputs(p, q);
  attention_checks::PackedOffsets kept;
  kept.q_offsets = q_offsets;
  if (q.is_cuda()) {
    // The guard judges every sequence, writes its key count, and appends the sound ones' new
    // tokens, before anything reads the caches.
    kept.kv_lengths = at::empty({sequences}, cache_lengths.options());
    k::SequenceGuard g;
    g.status = word;
    g.q_total = q.size(0);
    g.cache_lengths = cache_lengths.const_data_ptr<std::int64_t>();
    g.kv_lengths = kept.kv_lengths.mutable_data_ptr<std::int64_t>();
    g.pages = pages;
    const at::Tensor kn = k_new ? k_new->contiguous() : at::Tensor();
    const at::Tensor vn = v_new ? v_new->contiguous() : at::Tensor();
    if (k_new) {
      g.k_append = cache_append(k_cache, kn);
      g.v_append = cache_append(v_cache, vn);
    }
    attention_checks::guard_sequences(p, g, kept, q, op);
  } else {
    const at::Tensor q_lens = q_offsets.slice(0, 1) - q_offsets.slice(0, 0, -1);
    kept.kv_lengths = (cache_lengths + q_lens).contiguous();
    if (k_new) {
      // Token r of sequence b goes to position cache_lengths[b] + (r - q_offsets[b]).
      const at::Tensor seq = at::repeat_interleave(at::arange(sequences, q_offsets.options()),
                                                   q_lens, std::nullopt, q.size(0));
      const at::Tensor position = cache_lengths.index({seq}) +
                                  at::arange(q.size(0), q_offsets.options()) -
                                  q_offsets.index({seq});
      const at::Tensor page =
          block_table.index({seq, at::floor_divide(position, page_size)}).to(at::kLong);
      const at::Tensor slot = at::remainder(position, page_size);
      at::Tensor kc = k_cache, vc = v_cache;
      kc.index_put_({page, slot}, *k_new);
      vc.index_put_({page, slot}, *v_new);
    }
  }
  p.kv_lengths = kept.kv_lengths.const_data_ptr<std::int64_t>();
  // The caches after the new tokens' write; read from an aligned copy where they are not.
  const at::Tensor kc = rows_aligned(k_cache, algorithm), vc = rows_aligned(v_cache, algorithm);
  p.k = kc.const_data_ptr();
  p.v = vc.const_data_ptr();
  p.k_page_stride = kc.stride(0);
  p.k_token_stride = kc.stride(1);
  p.k_head_stride = kc.stride(2);
  p.v_page_stride = vc.stride(0);
  p.v_token_stride = vc.stride(1);
  p.v_head_stride = vc.stride(2);
  return run(p, q, o.out, o.lse, op);
}

}  // namespace samebits

namespace {

std::tuple<at::Tensor, at::Tensor> attention_op(const at::Tensor& q, const at::Tensor& k,
                                                const at::Tensor& v, bool causal,
                                                std::optional<double> scale) {
  auto r = samebits::invariant_attention(q, k, v, causal, scale);
  return {r.out, r.lse};
}

std::tuple<at::Tensor, at::Tensor> attention_varlen_op(
    const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& q_offsets,
    const at::Tensor& kv_offsets, std::int64_t max_q_len, bool causal, std::optional<double> scale,
    std::int64_t max_kv_len, const std::optional<at::Tensor>& status) {
  auto r = samebits::invariant_attention_varlen(q, k, v, q_offsets, kv_offsets, max_q_len, causal,
                                                scale, max_kv_len, status);
  return {r.out, r.lse};
}

std::tuple<at::Tensor, at::Tensor> attention_with_kvcache_op(
    const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
    const at::Tensor& block_table, const at::Tensor& cache_lengths, const at::Tensor& q_offsets,
    const std::optional<at::Tensor>& k_new, const std::optional<at::Tensor>& v_new,
    std::int64_t max_q_len, bool causal, std::optional<double> scale, std::int64_t max_kv_len,
    const std::optional<at::Tensor>& status) {
  auto r = samebits::invariant_attention_with_kvcache(q, k_cache, v_cache, block_table,
                                                      cache_lengths, q_offsets, k_new, v_new,
                                                      max_q_len, causal, scale, max_kv_len, status);
  return {r.out, r.lse};
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(samebits, m) {
  m.def(
      "attention(Tensor q, Tensor k, Tensor v, bool causal=True, float? scale=None) -> "
      "(Tensor out, Tensor lse)");
  m.def(
      "attention_varlen(Tensor q, Tensor k, Tensor v, Tensor q_offsets, Tensor kv_offsets, "
      "int max_q_len=-1, bool causal=True, float? scale=None, int max_kv_len=-1, "
      "Tensor(a!)? status=None) -> (Tensor out, Tensor lse)");
  m.def(
      "attention_with_kvcache(Tensor q, Tensor(a!) k_cache, Tensor(b!) v_cache, "
      "Tensor block_table, Tensor cache_lengths, Tensor q_offsets, Tensor? k_new=None, "
      "Tensor? v_new=None, int max_q_len=-1, bool causal=True, float? scale=None, "
      "int max_kv_len=-1, Tensor(c!)? status=None) -> (Tensor out, Tensor lse)");
  samebits::define_attention_backward(m);
}

TORCH_LIBRARY_IMPL(samebits, CPU, m) {
  m.impl("attention", attention_op);
  m.impl("attention_varlen", attention_varlen_op);
  m.impl("attention_with_kvcache", attention_with_kvcache_op);
  samebits::implement_attention_backward(m);
}

TORCH_LIBRARY_IMPL(samebits, CUDA, m) {
  m.impl("attention", attention_op);
  m.impl("attention_varlen", attention_varlen_op);
  m.impl("attention_with_kvcache", attention_with_kvcache_op);
  samebits::implement_attention_backward(m);
}

// Autograd for attention and attention_varlen (kernels/attention/autograd.cpp): registered here,
// in the family's one registration unit, so the static library keeps it.
TORCH_LIBRARY_IMPL(samebits, Autograd, m) {
  samebits::implement_attention_autograd(m);
}
