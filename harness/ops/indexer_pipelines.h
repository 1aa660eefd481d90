// The attention indexer's per-item pipeline (q @ K^T, relu, * w, sum over heads, top-k) written
// three ways in ATen, as in the seed (a per-item loop, the loop with one batched sort, fully
// padded), and as one packed call of the bundled torch.ops.samebits.indexer, by either algorithm.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

#include "cases/varlen.h"
#include "kernels/indexer/invariant_indexer.h"

namespace samebits {

// One item: q [H, d] and keys [L, d] in the input dtype, head weights [H] in float32. float8
// items carry per-tensor scales (float32 [1]): q stands for q * q_scale, keys for keys * k_scale.
struct IndexerInputs {
  at::Tensor q;
  at::Tensor keys;
  at::Tensor weights;
  at::Tensor q_scale;  // undefined unless the inputs are float8
  at::Tensor k_scale;
};

// One item's outputs: scores [L] float32 (float64 for the reference), indices [k] int64.
struct IndexerResult {
  at::Tensor scores;
  at::Tensor indices;
};

// The per-item head sum: (q @ K^T) in the input dtype, relu, times w[:, None] (promoting to
// float32), summed over heads with sum(dim=0) on the contiguous [H, L] buffer.
at::Tensor head_sum_scores(const IndexerInputs& item);

// "aten.loop": per item, head_sum_scores then at::topk(scores, k).
std::vector<IndexerResult> indexer_loop(const std::vector<IndexerInputs>& items, std::int64_t k);

// "aten.loop_sort": per-item scores as in the loop, written into one -inf padded [B, maxL] buffer
// (on the side `side` says), then one stable descending at::argsort over the batch, first k.
std::vector<IndexerResult> indexer_loop_sort(const std::vector<IndexerInputs>& items,
                                             std::int64_t k, PaddingMode side);

// "aten.padded": keys padded to [B, maxL, d] (zeros, or NaN canaries), one bmm, relu, * w, sum over
// heads on the padded [B, H, maxL] buffer, padded positions set to -inf, one stable argsort.
std::vector<IndexerResult> indexer_padded(const std::vector<IndexerInputs>& items, std::int64_t k,
                                          PaddingMode side, bool canary_padding);

// "samebits" and "samebits.exact": every item in one call of torch.ops.samebits.indexer
// (kernels/indexer/binding.h) with `algorithm`, keys packed end to end with offsets (no padding),
// float8 scales passed per item. Scores are float32 with no rounding of q @ K^T to the input dtype:
// tensor_cores forms the dots on bf16 (f16 for fp8) MMA with float32 accumulators (the CPU twin in
// float64, rounded once), exact as one float32 fma chain (GPU and CPU twin give the same bits).
// Indices in the stable descending order. Takes bfloat16 or float8_e4m3fn items.
std::vector<IndexerResult> indexer_samebits(const std::vector<IndexerInputs>& items, std::int64_t k,
                                            kernels::IndexerAlgorithm algorithm);

// The float64 CPU reference: the same pipeline on the same input values (float8 ones times their
// scales), with no rounding of the q @ K^T products to the input dtype; indices by a stable
// descending sort of the float64 scores.
IndexerResult indexer_reference(const IndexerInputs& item, std::int64_t k);

}  // namespace samebits
