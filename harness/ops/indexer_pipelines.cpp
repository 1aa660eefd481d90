// The attention indexer's per-item pipeline (q @ K^T, relu, * w, sum over heads, top-k) written
// three ways in ATen, as in the seed (a per-item loop, the loop with one batched sort, fully
// padded), and as one packed call of the bundled torch.ops.samebits.indexer, by either algorithm.
#include "harness/ops/indexer_pipelines.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "harness/kernel_capture.h"
#include "kernels/indexer/binding.h"

namespace samebits {
namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

// The first k of a stable descending sort along dim 1, shifted so that each row's indices count
// from where its item starts in the padded row.
std::vector<at::Tensor> stable_top_k(const at::Tensor& rows, std::int64_t k,
                                     const std::vector<std::int64_t>& starts) {
  const ComputeScope under_test;
  const at::Tensor order =
      at::argsort(rows, /*stable=*/true, /*dim=*/1, /*descending=*/true).narrow(1, 0, k);
  std::vector<at::Tensor> out;
  for (std::size_t b = 0; b < starts.size(); ++b) {
    out.push_back(order[static_cast<std::int64_t>(b)].sub(starts[b]));
  }
  return out;
}

}  // namespace

at::Tensor head_sum_scores(const IndexerInputs& item) {
  const ComputeScope under_test;
  const at::Tensor per_head =
      at::matmul(item.q, item.keys.t()).relu().mul(item.weights.unsqueeze(1));
  return per_head.sum(0);
}

std::vector<IndexerResult> indexer_loop(const std::vector<IndexerInputs>& items, std::int64_t k) {
  std::vector<IndexerResult> out;
  for (const auto& item : items) {
    const ComputeScope under_test;
    at::Tensor scores = head_sum_scores(item);
    at::Tensor indices = std::get<1>(at::topk(scores, k));
    out.push_back({std::move(scores), std::move(indices)});
  }
  return out;
}

std::vector<IndexerResult> indexer_loop_sort(const std::vector<IndexerInputs>& items,
                                             std::int64_t k, PaddingMode side) {
  std::vector<at::Tensor> scores;
  for (const auto& item : items) scores.push_back(head_sum_scores(item));
  const PaddedBatch rows = pad_batch(scores, 0, side, kMinusInfinity);
  const std::vector<at::Tensor> indices = stable_top_k(rows.data, k, rows.starts);
  std::vector<IndexerResult> out;
  for (std::size_t b = 0; b < items.size(); ++b) out.push_back({scores[b], indices[b]});
  return out;
}

std::vector<IndexerResult> indexer_padded(const std::vector<IndexerInputs>& items, std::int64_t k,
                                          PaddingMode side, bool canary_padding) {
  std::vector<at::Tensor> keys, queries, weights;
  for (const auto& item : items) {
    keys.push_back(item.keys);
    queries.push_back(item.q);
    weights.push_back(item.weights);
  }
  const double fill = canary_padding ? std::numeric_limits<double>::quiet_NaN() : 0.0;
  const PaddedBatch padded = pad_batch(keys, 0, side, fill);  // [B, maxL, d]
  const at::Tensor stacked_queries = at::stack(queries);
  const at::Tensor stacked_weights = at::stack(weights);
  const ComputeScope under_test;
  const at::Tensor per_head = at::bmm(stacked_queries, padded.data.transpose(1, 2))
                                  .relu()
                                  .mul(stacked_weights.unsqueeze(2));  // [B, H, maxL]
  // The head sum runs over the padded buffer: each row's stride is maxL, not its own length.
  const at::Tensor scores =
      per_head.sum(1).masked_fill_(padded.valid.logical_not(), kMinusInfinity);
  const std::vector<at::Tensor> indices = stable_top_k(scores, k, padded.starts);
  std::vector<IndexerResult> out;
  for (std::size_t b = 0; b < items.size(); ++b) {
    const auto row = static_cast<std::int64_t>(b);
    out.push_back({scores[row].narrow(0, padded.starts[b], padded.lengths[b]), indices[b]});
  }
  return out;
}

std::vector<IndexerResult> indexer_samebits(const std::vector<IndexerInputs>& items, std::int64_t k,
                                            kernels::IndexerAlgorithm algorithm) {
  std::vector<at::Tensor> queries, keys, weights, q_scales, k_scales;
  std::vector<std::int64_t> offsets = {0};
  std::int64_t longest = 0;
  for (const auto& item : items) {
    queries.push_back(item.q);
    keys.push_back(item.keys);
    weights.push_back(item.weights);
    if (item.q_scale.defined()) q_scales.push_back(item.q_scale.reshape({1}));
    if (item.k_scale.defined()) k_scales.push_back(item.k_scale.reshape({1}));
    offsets.push_back(offsets.back() + item.keys.size(0));
    longest = std::max(longest, item.keys.size(0));
  }
  const at::Device device = items.front().q.device();
  const at::Tensor packed_offsets =
      at::tensor(offsets, at::TensorOptions().dtype(at::kLong)).to(device);
  const at::Tensor stacked_queries = at::stack(queries);  // [B, H, d]
  const at::Tensor packed_keys = at::cat(keys);           // [total, d]
  const at::Tensor stacked_weights = at::stack(weights);  // [B, H]
  std::optional<at::Tensor> q_scale, k_scale;
  if (!q_scales.empty()) q_scale = at::cat(q_scales);  // [B]
  if (!k_scales.empty()) k_scale = at::cat(k_scales);
  IndexerOutputs all;
  {
    const ComputeScope under_test;
    all = invariant_indexer(stacked_queries, packed_keys, packed_offsets, stacked_weights, k,
                            longest, q_scale, k_scale, /*unsafe=*/false, algorithm);
  }
  std::vector<IndexerResult> out;
  for (std::size_t b = 0; b < items.size(); ++b) {
    out.push_back({all.scores.narrow(0, offsets[b], offsets[b + 1] - offsets[b]),
                   all.top_indices[static_cast<std::int64_t>(b)]});
  }
  return out;
}

IndexerResult indexer_reference(const IndexerInputs& item, std::int64_t k) {
  // A float8 value (4 significant bits) times a float32 scale (24) is exact in float64.
  auto widened = [](const at::Tensor& x, const at::Tensor& scale) {
    const at::Tensor wide = x.cpu().to(at::kDouble);
    return scale.defined() ? wide.mul(scale.cpu().to(at::kDouble)) : wide;
  };
  const IndexerInputs wide{widened(item.q, item.q_scale), widened(item.keys, item.k_scale),
                           item.weights.cpu().to(at::kDouble), at::Tensor(), at::Tensor()};
  at::Tensor scores = head_sum_scores(wide);
  at::Tensor indices =
      at::argsort(scores, /*stable=*/true, /*dim=*/0, /*descending=*/true).narrow(0, 0, k);
  return {std::move(scores), std::move(indices)};
}

}  // namespace samebits
