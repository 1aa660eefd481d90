// C++ entry points of torch.ops.samebits.softmax / log_softmax over the last dim (any strides):
// the harness calls these directly; Python reaches them through torch.ops.samebits.
#pragma once

#include <ATen/ATen.h>

#include <optional>

namespace samebits {

// softmax (log = false) or log_softmax of x over its last dim in the order of
// kernels/softmax/invariant_softmax_order.h; the result has x's dtype, or float32 when dtype is
// float32 (the only dtype accepted).
at::Tensor invariant_softmax(const at::Tensor& x, std::optional<at::ScalarType> dtype, bool log);

}  // namespace samebits
