// Autograd for torch.ops.samebits.attention and attention_varlen, in C++: loss.backward() works
// from Python and from C++ (the harness's gradient checks), through the invariant backward.
#pragma once

#include <torch/library.h>

#include <cstdint>
#include <optional>

#include "kernels/attention/binding.h"

namespace samebits {

// invariant_attention and invariant_attention_varlen as autograd functions: where q, k or v
// requires a gradient, out gets a node whose backward is invariant_attention_backward (or its
// varlen form) over the saved q, k, v, out and lse. lse is not differentiable (requires_grad
// false). Without grad mode or a leaf that requires one, they are the plain calls.
AttentionOutputs differentiable_attention(const at::Tensor& q, const at::Tensor& k,
                                          const at::Tensor& v, bool causal = true,
                                          std::optional<double> scale = std::nullopt);
AttentionOutputs differentiable_attention_varlen(
    const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& q_offsets,
    const at::Tensor& kv_offsets, std::int64_t max_q_len = -1, bool causal = true,
    std::optional<double> scale = std::nullopt, std::int64_t max_kv_len = -1,
    const std::optional<at::Tensor>& status = std::nullopt);

// Registers them as the Autograd kernels of attention and attention_varlen (called from
// binding.cpp's TORCH_LIBRARY_IMPL(samebits, Autograd) block).
void implement_attention_autograd(torch::Library& m);

}  // namespace samebits
