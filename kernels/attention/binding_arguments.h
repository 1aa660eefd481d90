// What every attention binding (forward and backward) does with its arguments: checks dtypes,
// devices, shapes and offsets, naming the argument and what it accepts, and fills the problem.
#pragma once

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include <cmath>
#include <cstdint>
#include <optional>

#include "kernels/attention/invariant_attention.h"
#include "kernels/attention/sequence_guard.h"
#include "kernels/common/binding_support.h"

namespace samebits::attention_checks {

namespace k = kernels;

inline k::DType attention_dtype(const at::Tensor& q, const char* op) {
  if (q.scalar_type() == at::kBFloat16) return k::DType::bf16;
  if (q.scalar_type() == at::kHalf) return k::DType::f16;
  TORCH_CHECK(false, "samebits.", op, ": q takes bfloat16 or float16, not ", q.scalar_type());
}

// k, v (and the rest) share q's dtype and device; the last dim is walked with stride 1.
inline at::Tensor like_q(const at::Tensor& x, const char* name, const at::Tensor& q,
                         const char* op) {
  TORCH_CHECK(x.scalar_type() == q.scalar_type(), "samebits.", op, ": ", name,
              " must have q's dtype ", q.scalar_type(), ", got ", x.scalar_type());
  TORCH_CHECK(x.device() == q.device(), "samebits.", op, ": ", name, " must be on q's device ",
              q.device(), ", got ", x.device());
  return x.stride(-1) == 1 ? x : x.contiguous();
}

inline at::Tensor offsets_on(const at::Tensor& offsets, const char* name, std::int64_t sequences,
                             const at::Tensor& q, const char* op) {
  TORCH_CHECK(
      offsets.scalar_type() == at::kLong && offsets.dim() == 1 && offsets.numel() == sequences + 1,
      "samebits.", op, ": ", name, " must be int64 [B + 1], got ", offsets.scalar_type(), " ",
      offsets.sizes());
  TORCH_CHECK(offsets.device() == q.device(), "samebits.", op, ": ", name,
              " must be on q's device ", q.device(), ", got ", offsets.device());
  return offsets.contiguous();
}

// H, Hkv and d: supported, H a multiple of Hkv, d shared by q, k and v.
inline void check_heads(std::int64_t heads, std::int64_t kv_heads, std::int64_t d, std::int64_t k_d,
                        std::int64_t v_d, const char* op) {
  TORCH_CHECK(k::attention_head_dim_supported(d), "samebits.", op,
              ": head dim d must be 64, 128 or 256, got ", d);
  TORCH_CHECK(k_d == d && v_d == d, "samebits.", op, ": q, k and v must share d = ", d, ", got k ",
              k_d, " and v ", v_d);
  TORCH_CHECK(heads >= 1 && heads <= 65535 && kv_heads >= 1 && heads % kv_heads == 0, "samebits.",
              op, ": H (", heads, ") must be a multiple of Hkv (", kv_heads,
              "), both in [1, 65535]");
}

inline float softmax_scale(std::optional<double> scale, std::int64_t d) {
  return scale ? static_cast<float>(*scale) : 1.0f / std::sqrt(static_cast<float>(d));
}

// CUDA runs on tensor cores where they take the problem (d 64 or 128, a positive finite scale),
// else (d = 256, a scale <= 0 or not finite, or on the CPU) the exact path: a choice made from the
// call's own arguments, never from the batch. The forward and the backward pick alike.
inline k::AttentionAlgorithm algorithm_for(const at::Tensor& q, std::int64_t d,
                                           std::optional<double> scale) {
  const float s = softmax_scale(scale, d);
  return q.is_cuda() && (d == 64 || d == 128) && s > 0.0f && std::isfinite(s)
             ? k::AttentionAlgorithm::tensor_cores
             : k::AttentionAlgorithm::exact;
}

// The tensor cores read 16-byte rows: x whose rows are not 16-byte aligned is copied first, so
// that neither the algorithm nor the bits follow the alignment of a caller's buffers.
inline at::Tensor rows_aligned(const at::Tensor& x, k::AttentionAlgorithm algorithm) {
  if (algorithm != k::AttentionAlgorithm::tensor_cores) return x;
  bool aligned = reinterpret_cast<std::uintptr_t>(x.const_data_ptr()) % 16 == 0;
  for (std::int64_t i = 0; i + 1 < x.dim(); ++i) aligned = aligned && x.stride(i) % 8 == 0;
  return aligned ? x : x.clone(at::MemoryFormat::Contiguous);
}

// Dense q [B, H, Lq, d], k and v [B, Hkv, Lk, d] (checked): sizes, pointers and strides into p.
inline void dense_inputs(k::AttentionProblem& p, const at::Tensor& q, const at::Tensor& kk,
                         const at::Tensor& v, const char* op) {
  const std::int64_t batch = q.size(0);
  check_heads(q.size(1), kk.size(1), q.size(3), kk.size(3), v.size(3), op);
  TORCH_CHECK(kk.size(0) == batch && v.size(0) == batch && v.size(1) == kk.size(1) &&
                  v.size(2) == kk.size(2),
              "samebits.", op, ": k and v must be [B, Hkv, Lk, d] with B = ", batch, ", got ",
              kk.sizes(), " and ", v.sizes());
  TORCH_CHECK(batch <= 65535, "samebits.", op, ": at most 65535 sequences, got ", batch);
  p.sequences = batch;
  p.heads = q.size(1);
  p.kv_heads = kk.size(1);
  p.head_dim = q.size(3);
  p.q = q.const_data_ptr();
  p.q_len = p.max_q_len = q.size(2);
  p.q_seq_stride = q.stride(0);
  p.q_head_stride = q.stride(1);
  p.q_token_stride = q.stride(2);
  p.k = kk.const_data_ptr();
  p.v = v.const_data_ptr();
  p.kv_len = p.max_kv_len = kk.size(2);
  p.k_page_stride = kk.stride(0);
  p.k_head_stride = kk.stride(1);
  p.k_token_stride = kk.stride(2);
  p.v_page_stride = v.stride(0);
  p.v_head_stride = v.stride(1);
  p.v_token_stride = v.stride(2);
}

// The query side of a packed call: q [Tq, H, d] with its (checked) offsets.
inline void packed_queries(k::AttentionProblem& p, const at::Tensor& q, const at::Tensor& q_offsets,
                           std::int64_t max_q_len) {
  p.sequences = q_offsets.numel() - 1;
  p.heads = q.size(1);
  p.head_dim = q.size(2);
  p.q = q.const_data_ptr();
  p.q_offsets = q_offsets.const_data_ptr<std::int64_t>();
  p.max_q_len = max_q_len;
  p.q_token_stride = q.stride(0);
  p.q_head_stride = q.stride(1);
}

// The metadata the problem reads, kept alive by the caller: the B + 1 offsets of q and k, and on
// CUDA the guard's flaw per sequence (and, paged, its key counts).
struct PackedOffsets {
  at::Tensor q_offsets, kv_offsets, flaws, kv_lengths;
};

// Runs the sequence guard (sequence_guard.h) over p on q's device and points p.sequence_flaws at
// its verdicts (kept in `kept`); g's flaws are filled here.
inline void guard_sequences(k::AttentionProblem& p, k::SequenceGuard g, PackedOffsets& kept,
                            const at::Tensor& q, const char* op) {
  const c10::cuda::CUDAGuard device(q.device());
  kept.flaws = at::empty({p.sequences}, q.options().dtype(at::kInt));
  g.flaws = kept.flaws.mutable_data_ptr<std::int32_t>();
  check_kernel_status(k::attention_sequence_guard_cuda(p, g, at::cuda::getCurrentCUDAStream()), op);
  p.sequence_flaws = kept.flaws.const_data_ptr<std::int32_t>();
}

// Packed q [Tq, H, d], k and v [Tk, Hkv, d] and their offsets: sizes, pointers and strides into p.
// max_q_len and max_kv_len bound every sequence's queries and keys; negative: on the CPU (and in
// SAMEBITS_DEBUG_METADATA mode) read from the offsets, which are checked there with their
// messages; on CUDA q.size(0) and k.size(0), with no copy to the host. On CUDA the guard then
// judges every sequence on the device (status: optional, its flaws OR-ed in; mark: NaN in a
// flawed sequence's rows of p.out and p.lse, which must be set).
inline PackedOffsets packed_inputs(k::AttentionProblem& p, const at::Tensor& q,
                                   const at::Tensor& kk, const at::Tensor& v,
                                   const at::Tensor& q_offsets_in, const at::Tensor& kv_offsets_in,
                                   std::int64_t max_q_len, const char* op,
                                   std::int64_t max_kv_len = -1, std::int32_t* status = nullptr,
                                   bool mark = false) {
  check_heads(q.size(1), kk.size(1), q.size(2), kk.size(2), v.size(2), op);
  TORCH_CHECK(v.size(0) == kk.size(0) && v.size(1) == kk.size(1), "samebits.", op,
              ": k and v must have the same shape, got ", kk.sizes(), " and ", v.sizes());
  const std::int64_t sequences = q_offsets_in.numel() - 1;
  TORCH_CHECK(sequences >= 0 && sequences <= 65535, "samebits.", op,
              ": q_offsets must hold B + 1 entries with B in [0, 65535], got ",
              q_offsets_in.numel());
  PackedOffsets kept;
  kept.q_offsets = offsets_on(q_offsets_in, "q_offsets", sequences, q, op);
  kept.kv_offsets = offsets_on(kv_offsets_in, "kv_offsets", sequences, q, op);
  max_q_len = longest_row_bound(kept.q_offsets, q.size(0), "q.size(0)", max_q_len, q.size(0), op);
  packed_queries(p, q, kept.q_offsets, max_q_len);
  p.kv_heads = kk.size(1);
  p.k = kk.const_data_ptr();
  p.v = v.const_data_ptr();
  p.kv_offsets = kept.kv_offsets.const_data_ptr<std::int64_t>();
  p.max_kv_len =
      longest_row_bound(kept.kv_offsets, kk.size(0), "k.size(0)", max_kv_len, kk.size(0), op);
  p.k_token_stride = kk.stride(0);
  p.k_head_stride = kk.stride(1);
  p.v_token_stride = v.stride(0);
  p.v_head_stride = v.stride(1);
  if (q.is_cuda()) {
    k::SequenceGuard g;
    g.status = status;
    g.q_total = q.size(0);
    g.kv_total = kk.size(0);
    g.mark = mark;
    guard_sequences(p, g, kept, q, op);
  }
  return kept;
}

}  // namespace samebits::attention_checks
