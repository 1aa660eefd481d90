// C++ entry points of torch.ops.samebits.rms_norm and add_rms_norm: the invariant RMSNorm, each
// row's bits its own (kernels/norm/invariant_norm_order.h).
#pragma once

#include <ATen/ATen.h>

#include <utility>

namespace samebits {

// x [..., D] (float32, float16 or bfloat16; rows contiguous, any row stride), w [D] of x's dtype:
// x * (1 / sqrt(mean(x^2) + eps)) * w, computed in float32, in x's dtype.
at::Tensor invariant_rms_norm(const at::Tensor& x, const at::Tensor& w, double eps);

// The fused residual form: h = x + residual (rounded to the dtype), y = rms_norm(h, w, eps).
// Returns (y, h); h is the next layer's residual.
std::pair<at::Tensor, at::Tensor> invariant_add_rms_norm(const at::Tensor& x,
                                                         const at::Tensor& residual,
                                                         const at::Tensor& w, double eps);

}  // namespace samebits
