// torch.ops.samebits.attention_backward and attention_varlen_backward: every argument checked
// (naming it and what it accepts) before any work, then the twin (CPU) or the exact CUDA path.
#include "kernels/attention/backward_binding.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

#include "kernels/attention/attention_backward_tensor_cores.h"
#include "kernels/attention/binding_arguments.h"
#include "kernels/attention/invariant_attention_backward.h"
#include "kernels/common/binding_support.h"

namespace samebits {
namespace {

namespace k = kernels;
using attention_checks::algorithm_for;
using attention_checks::attention_dtype;
using attention_checks::like_q;
using attention_checks::rows_aligned;
using attention_checks::softmax_scale;

// dout and out: q's shape, dtype and device, the last dim walked with stride 1.
at::Tensor like_q_shaped(const at::Tensor& x, const char* name, const at::Tensor& q,
                         const char* op) {
  TORCH_CHECK(x.sizes() == q.sizes(), "samebits.", op, ": ", name, " must have q's shape ",
              q.sizes(), ", got ", x.sizes());
  return like_q(x, name, q, op);
}

// lse: the forward's float32 log-sum-exps, `shape` on q's device.
void check_lse(const at::Tensor& lse, const std::vector<std::int64_t>& shape, const char* layout,
               const at::Tensor& q, const char* op) {
  TORCH_CHECK(lse.scalar_type() == at::kFloat && lse.sizes() == at::IntArrayRef(shape) &&
                  lse.device() == q.device(),
              "samebits.", op, ": lse must be the forward's float32 ", layout, " = ",
              at::IntArrayRef(shape), " on q's device ", q.device(), ", got ", lse.scalar_type(),
              " ", lse.sizes(), " on ", lse.device());
}

// The gradients, zero where no sequence reaches, laid out contiguously like q, k and v.
AttentionGradients run(k::AttentionBackwardProblem& bp, const at::Tensor& q, const at::Tensor& kk,
                       const at::Tensor& v, const char* op) {
  TORCH_CHECK(q.is_cpu() || q.is_cuda(), "samebits.", op, " runs on CPU or CUDA tensors, not ",
              q.device());
  AttentionGradients g{at::zeros(q.sizes(), q.options()), at::zeros(kk.sizes(), kk.options()),
                       at::zeros(v.sizes(), v.options())};
  const std::int64_t dims = q.dim();  // 4 dense ([B, H, L, d]), 3 packed ([T, H, d])
  const auto strides = [dims](const at::Tensor& x, std::int64_t* seq, std::int64_t* token,
                              std::int64_t* head) {
    *seq = dims == 4 ? x.stride(0) : 0;
    *token = dims == 4 ? x.stride(2) : x.stride(0);
    *head = x.stride(1);
  };
  bp.dq = g.dq.mutable_data_ptr();
  bp.dk = g.dk.mutable_data_ptr();
  bp.dv = g.dv.mutable_data_ptr();
  strides(g.dq, &bp.dq_seq_stride, &bp.dq_token_stride, &bp.dq_head_stride);
  strides(g.dk, &bp.dk_seq_stride, &bp.dk_token_stride, &bp.dk_head_stride);
  strides(g.dv, &bp.dv_seq_stride, &bp.dv_token_stride, &bp.dv_head_stride);
  if (q.is_cuda()) {
    const c10::cuda::CUDAGuard guard(q.device());
    // (a layout the tensor cores do not take after all runs exact, never fails)
    if (bp.forward.algorithm == k::AttentionAlgorithm::tensor_cores &&
        !k::attention_backward_tensor_cores_supported(bp))
      bp.forward.algorithm = k::AttentionAlgorithm::exact;
    const std::int64_t floats = k::attention_backward_delta_floats(bp);
    const at::Tensor delta =
        at::empty({std::max<std::int64_t>(floats, 1)}, q.options().dtype(at::kFloat));
    bp.delta = delta.mutable_data_ptr<float>();
    bp.delta_floats = floats;
    check_kernel_status(k::invariant_attention_backward_cuda(bp, at::cuda::getCurrentCUDAStream()),
                        op);
  } else {
    check_kernel_status(k::invariant_attention_backward_cpu(bp), op);
  }
  return g;
}

// The forward's guard marks a flawed sequence's rows of out and lse NaN; the backward, which read
// nothing of it (its dq, dk and dv stayed zero), marks its rows of dq the same way: the guard run
// once more over the same metadata (so the same verdicts), with dq in the place of out.
void mark_flawed_rows(const k::AttentionProblem& p, const at::Tensor& dq, const at::Tensor& q,
                      std::int64_t kv_total, const char* op) {
  k::AttentionProblem marked = p;
  marked.sequence_flaws = nullptr;  // judged afresh, not read as already empty
  marked.out = dq.mutable_data_ptr();
  marked.out_token_stride = dq.stride(0);
  marked.out_head_stride = dq.stride(1);
  marked.lse = nullptr;
  k::SequenceGuard guard;
  guard.q_total = q.size(0);
  guard.kv_total = kv_total;
  guard.mark = true;
  attention_checks::PackedOffsets verdicts;
  attention_checks::guard_sequences(marked, guard, verdicts, q, op);
}

// q, k and v of rank `rank` (`shapes` says which), dout and out: checked alike for both layouts.
struct Inputs {
  at::Tensor q, kk, v, dout, out;
};
Inputs inputs(const at::Tensor& dout, const at::Tensor& q_in, const at::Tensor& k,
              const at::Tensor& v, const at::Tensor& out, std::int64_t rank, const char* shapes,
              const char* op) {
  TORCH_CHECK(q_in.dim() == rank && k.dim() == rank && v.dim() == rank, "samebits.", op, ": ",
              shapes, ", got ", q_in.sizes(), ", ", k.sizes(), ", ", v.sizes());
  attention_dtype(q_in, op);
  const at::Tensor q = q_in.stride(-1) == 1 ? q_in : q_in.contiguous();
  return {q, like_q(k, "k", q, op), like_q(v, "v", q, op), like_q_shaped(dout, "dout", q, op),
          like_q_shaped(out, "out", q, op)};
}

// The inputs the tensor cores read in 16-byte chunks, aligned for them.
Inputs aligned_for(Inputs in, k::AttentionAlgorithm algorithm) {
  return {rows_aligned(in.q, algorithm), rows_aligned(in.kk, algorithm),
          rows_aligned(in.v, algorithm), rows_aligned(in.dout, algorithm), in.out};
}

// What both layouts share: dtype, the algorithm, scale and the read-only pointers (lse
// checked before).
k::AttentionBackwardProblem problem(const Inputs& in, const at::Tensor& lse, bool causal,
                                    std::optional<double> scale, const char* op) {
  k::AttentionBackwardProblem bp;
  k::AttentionProblem& p = bp.forward;
  p.dtype = attention_dtype(in.q, op);
  p.algorithm = algorithm_for(in.q, in.q.size(-1), scale);
  p.scale = softmax_scale(scale, in.q.size(-1));
  p.causal = causal;
  p.out = const_cast<void*>(in.out.const_data_ptr());  // read only: the forward's struct is shared
  p.lse = const_cast<float*>(lse.const_data_ptr<float>());
  bp.dout = in.dout.const_data_ptr();
  return bp;
}

}  // namespace

AttentionGradients invariant_attention_backward(const at::Tensor& dout, const at::Tensor& q,
                                                const at::Tensor& k, const at::Tensor& v,
                                                const at::Tensor& out, const at::Tensor& lse,
                                                bool causal, std::optional<double> scale) {
  const char* op = "attention_backward";
  const Inputs checked = inputs(dout, q, k, v, out, 4, "q, k and v must be [B, H, L, d]", op);
  const Inputs in = aligned_for(checked, algorithm_for(checked.q, checked.q.size(-1), scale));
  check_lse(lse, {in.q.size(0), in.q.size(1), in.q.size(2)}, "[B, H, Lq]", in.q, op);
  k::AttentionBackwardProblem bp = problem(in, lse, causal, scale, op);
  k::AttentionProblem& p = bp.forward;
  attention_checks::dense_inputs(p, in.q, in.kk, in.v, op);
  p.out_seq_stride = in.out.stride(0);
  p.out_head_stride = in.out.stride(1);
  p.out_token_stride = in.out.stride(2);
  p.lse_seq_stride = lse.stride(0);
  p.lse_head_stride = lse.stride(1);
  p.lse_token_stride = lse.stride(2);
  bp.dout_seq_stride = in.dout.stride(0);
  bp.dout_head_stride = in.dout.stride(1);
  bp.dout_token_stride = in.dout.stride(2);
  return run(bp, in.q, in.kk, in.v, op);
}

AttentionGradients invariant_attention_varlen_backward(
    const at::Tensor& dout, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
    const at::Tensor& out, const at::Tensor& lse, const at::Tensor& q_offsets,
    const at::Tensor& kv_offsets, std::int64_t max_q_len, bool causal, std::optional<double> scale,
    std::int64_t max_kv_len, const std::optional<at::Tensor>& status) {
  const char* op = "attention_varlen_backward";
  const Inputs checked =
      inputs(dout, q, k, v, out, 3, "q must be [Tq, H, d] and k, v [Tk, Hkv, d]", op);
  const Inputs in = aligned_for(checked, algorithm_for(checked.q, checked.q.size(-1), scale));
  check_lse(lse, {in.q.size(1), in.q.size(0)}, "[H, Tq]", in.q, op);
  k::AttentionBackwardProblem bp = problem(in, lse, causal, scale, op);
  k::AttentionProblem& p = bp.forward;
  const attention_checks::PackedOffsets kept =
      attention_checks::packed_inputs(p, in.q, in.kk, in.v, q_offsets, kv_offsets, max_q_len, op,
                                      max_kv_len, status_word(status, in.q, op));
  p.out_token_stride = in.out.stride(0);
  p.out_head_stride = in.out.stride(1);
  p.lse_head_stride = lse.stride(0);
  p.lse_token_stride = lse.stride(1);
  bp.dout_token_stride = in.dout.stride(0);
  bp.dout_head_stride = in.dout.stride(1);
  AttentionGradients g = run(bp, in.q, in.kk, in.v, op);
  if (in.q.is_cuda()) mark_flawed_rows(p, g.dq, in.q, in.kk.size(0), op);
  return g;
}

}  // namespace samebits

namespace {

using Gradients = std::tuple<at::Tensor, at::Tensor, at::Tensor>;

// lse is optional in the schemas only so that a missing one gets this message, not the
// dispatcher's.
const at::Tensor& required_lse(const std::optional<at::Tensor>& lse, const char* op,
                               const char* layout) {
  TORCH_CHECK(lse.has_value(), "samebits.", op, ": lse is required: the forward's float32 ", layout,
              " log-sum-exps");
  return *lse;
}

Gradients attention_backward_op(const at::Tensor& dout, const at::Tensor& q, const at::Tensor& k,
                                const at::Tensor& v, const at::Tensor& out,
                                const std::optional<at::Tensor>& lse, bool causal,
                                std::optional<double> scale) {
  auto g = samebits::invariant_attention_backward(
      dout, q, k, v, out, required_lse(lse, "attention_backward", "[B, H, Lq]"), causal, scale);
  return {g.dq, g.dk, g.dv};
}

Gradients attention_varlen_backward_op(const at::Tensor& dout, const at::Tensor& q,
                                       const at::Tensor& k, const at::Tensor& v,
                                       const at::Tensor& out, const std::optional<at::Tensor>& lse,
                                       const at::Tensor& q_offsets, const at::Tensor& kv_offsets,
                                       std::int64_t max_q_len, bool causal,
                                       std::optional<double> scale, std::int64_t max_kv_len,
                                       const std::optional<at::Tensor>& status) {
  auto g = samebits::invariant_attention_varlen_backward(
      dout, q, k, v, out, required_lse(lse, "attention_varlen_backward", "[H, Tq]"), q_offsets,
      kv_offsets, max_q_len, causal, scale, max_kv_len, status);
  return {g.dq, g.dk, g.dv};
}

}  // namespace

namespace samebits {

void define_attention_backward(torch::Library& m) {
  m.def(
      "attention_backward(Tensor dout, Tensor q, Tensor k, Tensor v, Tensor out, Tensor? lse, "
      "bool causal=True, float? scale=None) -> (Tensor dq, Tensor dk, Tensor dv)");
  m.def(
      "attention_varlen_backward(Tensor dout, Tensor q, Tensor k, Tensor v, Tensor out, "
      "Tensor? lse, Tensor q_offsets, Tensor kv_offsets, int max_q_len=-1, bool causal=True, "
      "float? scale=None, int max_kv_len=-1, Tensor(a!)? status=None) -> "
      "(Tensor dq, Tensor dk, Tensor dv)");
}

void implement_attention_backward(torch::Library& m) {
  m.impl("attention_backward", attention_backward_op);
  m.impl("attention_varlen_backward", attention_varlen_backward_op);
}

}  // namespace samebits
