// C++ entry points of torch.ops.samebits.topk / topk_varlen: the k largest of each row in the
// stable-descending-sort order (kernels/topk/invariant_topk_order.h), on CPU or CUDA tensors.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <tuple>

namespace samebits {

// "auto", "radix_select", "warp_select" or "split_select" (kernels/topk/invariant_topk.h says when
// each applies).
inline const char* const kTopkAlgorithms = "auto, radix_select, warp_select, split_select";

// Top-k over the last dim of x ([..., N] float32/float16/bfloat16): values [..., k] in x's dtype,
// indices [..., k] int64, both sorted in the contract's order.
std::tuple<at::Tensor, at::Tensor> invariant_topk(const at::Tensor& x, std::int64_t k,
                                                  const std::string& algorithm = "auto");

// Rows packed end to end: row r is values[offsets[r] .. offsets[r + 1]). Results [rows, k]; slots
// past a short row's end hold -inf and index -1. max_length bounds every row (the longest row when
// negative). The offsets are checked on the host (a device-to-host copy on CUDA) unless unsafe
// with a max_length on CUDA (no copy, so a CUDA graph can capture the call; a row past max_length
// is then the caller's error).
std::tuple<at::Tensor, at::Tensor> invariant_topk_varlen(const at::Tensor& values,
                                                         const at::Tensor& offsets, std::int64_t k,
                                                         std::int64_t max_length = -1,
                                                         const std::string& algorithm = "auto",
                                                         bool unsafe = false);

}  // namespace samebits
