// C++ entry points of torch.ops.samebits.topk / topk_varlen: the k largest of each row in the
// stable-descending-sort order (kernels/topk/invariant_topk_order.h), on CPU or CUDA tensors.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <optional>
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
// past a short row's end hold -inf and index -1. max_length bounds every row and sizes the launch
// (negative: the longest row for host offsets, values.numel() for CUDA ones). CUDA offsets never
// leave the device (no sync; a CUDA graph can capture the call): a row outside values, decreasing,
// or longer than max_length is marked (every slot NaN, index -1) and its flaws (row_guard.h) are
// OR-ed into `status` (int32, one element, on values' device) when given. Host offsets, or CUDA
// ones under SAMEBITS_DEBUG_METADATA=1, are checked eagerly and raise. unsafe: a no-op, kept so
// that old callers still run.
std::tuple<at::Tensor, at::Tensor> invariant_topk_varlen(
    const at::Tensor& values, const at::Tensor& offsets, std::int64_t k,
    std::int64_t max_length = -1, const std::string& algorithm = "auto", bool unsafe = false,
    const std::optional<at::Tensor>& status = std::nullopt);

}  // namespace samebits
