// C++ entry point of torch.ops.samebits.indexer: the attention indexer of reference 000 for a
// batch of variable-length items in one call, each item's bits as if it ran alone.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "kernels/indexer/invariant_indexer.h"

namespace samebits {

struct IndexerOutputs {
  at::Tensor scores;       // [total] float32, packed like the keys
  at::Tensor top_values;   // [B, k] float32
  at::Tensor top_indices;  // [B, k] int64, positions within each item
};

// q [B, H, d] and keys [total, d] in bfloat16 or float8_e4m3fn (one dtype), item b's keys at rows
// offsets[b] .. offsets[b + 1]; weights [B, H] float32; q_scale and k_scale [B] float32 (fp8 only,
// optional: 1). max_length bounds every item and sizes the launch; the offsets and max_length are
// as topk_varlen's (kernels/topk/binding.h): CUDA offsets stay on the device and a flawed item is
// marked (no score written, top-k slots NaN and -1, flaws OR-ed into `status`); host offsets, or
// SAMEBITS_DEBUG_METADATA=1, raise. unsafe: a no-op, kept for old callers.
// algorithm: how q K^T is formed (kernels/indexer/invariant_indexer.h): tensor_cores (default) or
// exact.
IndexerOutputs invariant_indexer(
    const at::Tensor& q, const at::Tensor& keys, const at::Tensor& offsets,
    const at::Tensor& weights, std::int64_t k, std::int64_t max_length = -1,
    const std::optional<at::Tensor>& q_scale = std::nullopt,
    const std::optional<at::Tensor>& k_scale = std::nullopt, bool unsafe = false,
    kernels::IndexerAlgorithm algorithm = kernels::IndexerAlgorithm::tensor_cores,
    const std::optional<at::Tensor>& status = std::nullopt);

// The op's algorithm argument: "tensor_cores" or "exact"; anything else is an error naming both.
kernels::IndexerAlgorithm parse_indexer_algorithm(std::string_view name);

}  // namespace samebits
