// C++ entry points of torch.ops.samebits.attention_backward and attention_varlen_backward: the
// invariant attention's gradients for fixed upstream gradients, each sequence's bits its own.
#pragma once

#include <ATen/ATen.h>
#include <torch/library.h>

#include <cstdint>
#include <optional>

namespace samebits {

struct AttentionGradients {
  at::Tensor dq, dk, dv;  // shaped like q, k and v, in q's dtype
};

// The dense forward's arguments (invariant_attention) with its results: dout and out like q
// [B, H, Lq, d] in q's dtype, lse float32 [B, H, Lq]. The exact order on CPU and CUDA alike.
AttentionGradients invariant_attention_backward(const at::Tensor& dout, const at::Tensor& q,
                                                const at::Tensor& k, const at::Tensor& v,
                                                const at::Tensor& out, const at::Tensor& lse,
                                                bool causal = true,
                                                std::optional<double> scale = std::nullopt);

// The packed forward's arguments (invariant_attention_varlen) with its results: dout and out like
// q [Tq, H, d], lse float32 [H, Tq]. Key rows outside every sequence get dk = dv = 0. The bounds
// and the guard as in the forward: CUDA metadata stay on the device, a flawed sequence is read
// nowhere, its dq rows are NaN (its dk and dv rows stay 0) and its flaws are OR-ed into status.
AttentionGradients invariant_attention_varlen_backward(
    const at::Tensor& dout, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
    const at::Tensor& out, const at::Tensor& lse, const at::Tensor& q_offsets,
    const at::Tensor& kv_offsets, std::int64_t max_q_len = -1, bool causal = true,
    std::optional<double> scale = std::nullopt, std::int64_t max_kv_len = -1,
    const std::optional<at::Tensor>& status = std::nullopt);

// The ops' schemas and their CPU and CUDA kernels, registered from the family's one registration
// block (binding.cpp): a static library's object that nothing calls would not be linked.
void define_attention_backward(torch::Library& m);
void implement_attention_backward(torch::Library& m);

}  // namespace samebits
