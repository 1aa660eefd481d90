// Seeded sequences and upstream gradients for the attention backward tests, packed as a batch, and
// one call that runs the backward (CUDA, or its twin on the CPU) on the twin forward's out and lse.
#pragma once

#include <ATen/ATen.h>
#include <c10/cuda/CUDAStream.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/attention/invariant_attention_backward.h"
#include "tests/kernels/attention_inputs.h"

namespace samebits {

// Sequence `seed`'s upstream gradient dO for all its `length` positions, [L, H, d] in the dtype:
// like its tokens, a function of its own seed alone.
inline at::Tensor upstream_gradient(const AttentionShape& s, std::uint64_t seed,
                                    std::int64_t length) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(seed ^ 0x9e3779b97f4a7c15ull);
  return at::randn({length, s.heads, s.head_dim}, gen, at::TensorOptions().dtype(at::kFloat))
      .to(s.dtype);
}

// dq [total_q, H, d] and dk, dv [total_kv, Hkv, d], packed in call order, on the CPU; with the
// forward's out and lse that the backward read.
struct GradientResult {
  at::Tensor dq, dk, dv, out, lse;
  std::vector<std::int64_t> q_offsets, kv_offsets;
  at::Tensor q_rows(const at::Tensor& x, std::size_t call) const {
    return x.slice(0, q_offsets[call], q_offsets[call + 1]);
  }
  at::Tensor key_rows(const at::Tensor& x, std::size_t call) const {
    return x.slice(0, kv_offsets[call], kv_offsets[call + 1]);
  }
};

// The forward (the twin, or on CUDA with cuda_forward: `algorithm`'s, the exact one the twin's
// bits, faster for long sequences) gives out and lse; then the backward runs on the CPU twin (cuda
// false) or the CUDA path `algorithm` names, on the current stream or a fresh one from the pool.
inline GradientResult run_attention_backward(
    const AttentionShape& s, const std::vector<SequenceCall>& calls, bool cuda,
    bool other_stream = false, bool cuda_forward = false,
    kernels::AttentionAlgorithm algorithm = kernels::AttentionAlgorithm::exact,
    bool warpgroup_mma = true) {
  namespace k = kernels;
  const AttentionResult forward =
      run_attention(s, calls, cuda_forward, 0, 1, false,
                    cuda_forward ? algorithm : kernels::AttentionAlgorithm::exact);
  GradientResult r;
  r.out = forward.out;
  r.lse = forward.lse;
  r.q_offsets = forward.q_offsets;
  r.kv_offsets = {0};
  std::vector<at::Tensor> qs, ks, vs, dos;
  std::int64_t max_q = 0, max_kv = 0;
  for (const auto& c : calls) {
    const SequenceData d = sequence_data(s, c.seed, c.length);
    qs.push_back(d.q.slice(0, c.kv_len - c.q_len, c.kv_len));
    ks.push_back(d.k.slice(0, 0, c.kv_len));
    vs.push_back(d.v.slice(0, 0, c.kv_len));
    dos.push_back(upstream_gradient(s, c.seed, c.length).slice(0, c.kv_len - c.q_len, c.kv_len));
    r.kv_offsets.push_back(r.kv_offsets.back() + c.kv_len);
    max_q = std::max(max_q, c.q_len);
    max_kv = std::max(max_kv, c.kv_len);
  }
  const at::Device device = cuda ? at::Device(at::kCUDA) : at::Device(at::kCPU);
  const auto on = [&](const std::vector<at::Tensor>& parts) {
    return at::cat(parts).to(device).contiguous();
  };
  const at::Tensor q = on(qs), kk = on(ks), vv = on(vs), dout = on(dos);
  const at::Tensor out = r.out.to(device).contiguous(), lse = r.lse.to(device).contiguous();
  const at::Tensor qo = at::tensor(r.q_offsets, at::kLong).to(device);
  const at::Tensor ko = at::tensor(r.kv_offsets, at::kLong).to(device);
  // Filled with 5: a gradient the kernel fails to write shows.
  at::Tensor dq = at::full_like(q, 5.0), dk = at::full_like(kk, 5.0), dv = at::full_like(vv, 5.0);

  k::AttentionBackwardProblem bp;
  k::AttentionProblem& p = bp.forward;
  p.dtype = s.dtype == at::kBFloat16 ? k::DType::bf16 : k::DType::f16;
  p.algorithm = algorithm;
  p.sequences = static_cast<std::int64_t>(calls.size());
  p.warpgroup_mma = warpgroup_mma;  // (the backward's blocks; the forward above keeps wgmma)
  p.heads = s.heads;
  p.kv_heads = s.kv_heads;
  p.head_dim = s.head_dim;
  p.scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
  p.causal = s.causal;
  p.q = q.data_ptr();
  p.q_offsets = qo.data_ptr<std::int64_t>();
  p.max_q_len = max_q;
  p.q_token_stride = bp.dout_token_stride = bp.dq_token_stride = p.out_token_stride =
      s.heads * s.head_dim;
  p.q_head_stride = bp.dout_head_stride = bp.dq_head_stride = p.out_head_stride = s.head_dim;
  p.k = kk.data_ptr();
  p.v = vv.data_ptr();
  p.kv_offsets = ko.data_ptr<std::int64_t>();
  p.max_kv_len = max_kv;
  p.k_token_stride = p.v_token_stride = bp.dk_token_stride = bp.dv_token_stride =
      s.kv_heads * s.head_dim;
  p.k_head_stride = p.v_head_stride = bp.dk_head_stride = bp.dv_head_stride = s.head_dim;
  p.out = out.data_ptr();
  p.lse = lse.data_ptr<float>();
  p.lse_token_stride = s.heads;
  p.lse_head_stride = 1;
  bp.dout = dout.data_ptr();
  bp.dq = dq.data_ptr();
  bp.dk = dk.data_ptr();
  bp.dv = dv.data_ptr();
  at::Tensor delta;
  k::Status status;
  if (cuda) {
    const std::int64_t floats = k::attention_backward_delta_floats(bp);
    delta = at::full({std::max<std::int64_t>(floats, 1)}, NAN, q.options().dtype(at::kFloat));
    bp.delta = delta.data_ptr<float>();
    bp.delta_floats = floats;
    c10::cuda::getCurrentCUDAStream().synchronize();  // the inputs' copies, before another stream
    const c10::cuda::CUDAStream stream =
        other_stream ? c10::cuda::getStreamFromPool() : c10::cuda::getCurrentCUDAStream();
    status = k::invariant_attention_backward_cuda(bp, stream.stream());
    stream.synchronize();
  } else {
    status = k::invariant_attention_backward_cpu(bp);
  }
  if (status != k::Status::ok)
    throw std::runtime_error(std::string("attention backward: ") + k::to_string(status));
  r.dq = dq.cpu();
  r.dk = dk.cpu();
  r.dv = dv.cpu();
  return r;
}

}  // namespace samebits
