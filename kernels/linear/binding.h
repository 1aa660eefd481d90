// C++ entry points of torch.ops.samebits.linear and samebits.matmul (the harness calls these
// directly; Python reaches them through torch.ops.samebits): every row's bits whatever the batch.
#pragma once

#include <ATen/ATen.h>

#include <optional>

namespace samebits {

// x [..., K], w [N, K], bias [N] (optional), one dtype of float32, float16, bfloat16: x w^T + bias
// as [..., N] in that dtype, in the order of kernels/linear/invariant_linear_order.h.
at::Tensor invariant_linear(const at::Tensor& x, const at::Tensor& w,
                            const std::optional<at::Tensor>& bias = std::nullopt);

// a [..., K] (2-D or more), b [K, N]: a b as [..., N], through invariant_linear on a contiguous
// copy of b^T (a copy: the bits are linear's).
at::Tensor invariant_matmul(const at::Tensor& a, const at::Tensor& b);

}  // namespace samebits
