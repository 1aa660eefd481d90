// C++ entry points of torch.ops.samebits.sum / mean / sum_varlen (float32 results, any input
// strides): the harness calls these directly; Python reaches them through torch.ops.samebits.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>

namespace samebits {

// x.sum(dim) / x.mean(dim) in the order of kernels/reduce/invariant_reduce_order.h.
at::Tensor invariant_reduce(const at::Tensor& x, std::int64_t dim, bool mean);
// Row r of the result reduces values[offsets[r] .. offsets[r + 1]).
at::Tensor invariant_reduce_varlen(const at::Tensor& values, const at::Tensor& offsets, bool mean);

}  // namespace samebits
