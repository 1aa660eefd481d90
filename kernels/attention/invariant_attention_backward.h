// The batch-invariant attention backward: dQ, dK and dV of O = softmax(Q K^T * scale) V for fixed
// upstream gradients dO, each sequence's bits its own (invariant_attention_backward_order.h).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/attention/invariant_attention.h"
#include "kernels/common/status.h"

namespace samebits::kernels {

// `forward` is the forward's problem, read-only here: sizes, scale, causal, q, k, v and their
// offsets and strides, its output O (`out`, the forward's rounded result) and `lse` (required),
// all as invariant_attention.h lays them out; dense [B, H, L, d] or packed (q_offsets,
// kv_offsets); no block table. forward.algorithm picks the CUDA path: exact (the twin's bits) or
// tensor_cores (attention_backward_tensor_cores.h; its own bits, within a stated bound of
// float64); the twin ignores it. dout has out's shape with its own strides; dq is laid out like q
// and dk, dv like k, v (dk_seq_stride, dv_seq_stride in the place of k_page_stride). Every key
// position t < kv_len(b) of every sequence and every query row gets written; elements outside them
// are left alone.
struct AttentionBackwardProblem {
  AttentionProblem forward;
  const void* dout = nullptr;
  std::int64_t dout_seq_stride = 0, dout_token_stride = 0, dout_head_stride = 0;
  void* dq = nullptr;
  std::int64_t dq_seq_stride = 0, dq_token_stride = 0, dq_head_stride = 0;
  void* dk = nullptr;
  std::int64_t dk_seq_stride = 0, dk_token_stride = 0, dk_head_stride = 0;
  void* dv = nullptr;
  std::int64_t dv_seq_stride = 0, dv_token_stride = 0, dv_head_stride = 0;

  // CUDA only, required: attention_backward_delta_floats() floats for D_i, which the dQ launch
  // writes and the dK/dV launch reads (same stream). forward.max_kv_len (>= every kv_len(b))
  // sizes the dK/dV launch.
  float* delta = nullptr;
  std::int64_t delta_floats = 0;
};

// What both paths need: attention_problem_check(forward), no block table, lse and every gradient
// pointer present.
Status attention_backward_check(const AttentionBackwardProblem& p);

// Floats of the CUDA path's D workspace: one per (sequence, query row up to max_q_len, head).
std::int64_t attention_backward_delta_floats(const AttentionBackwardProblem& p);

// forward.algorithm's path on `stream`, no atomics: exact (FP32 FMA units, the twin's order, two
// launches) or tensor_cores (three launches; invalid_argument where it is not supported).
Status invariant_attention_backward_cuda(const AttentionBackwardProblem& p, cudaStream_t stream);

// The CPU twin: the order's operations one after another, so the CUDA path's bits.
Status invariant_attention_backward_cpu(const AttentionBackwardProblem& p);

}  // namespace samebits::kernels
