// Indexer rows: torch.ops.samebits.indexer (one call for all items) against the seed's per-item
// ATen loop (matmul, relu, * w, sum(0), topk per item), 64 heads, d = 128, L 4096..8192 (and one
// item of 131072), K 2048.
#include <fmt/format.h>

#include <string>

#include "bench/bench_rows.h"
#include "harness/ops/indexer_pipelines.h"
#include "kernels/indexer/binding.h"

namespace samebits::bench {
namespace {

Row indexer_row(std::int64_t batch, at::ScalarType dtype, int reps, std::int64_t shortest = 4096,
                std::int64_t longest = 8192) {
  const std::int64_t heads = 64, head_dim = 128, k = 2048;
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(100 + batch);
  const at::Tensor lengths =
      at::randint(shortest, longest + 1, {batch}, gen, at::TensorOptions().dtype(at::kLong));
  const at::Tensor offsets = at::cat({at::zeros({1}, at::kLong), lengths.cumsum(0)});
  const std::int64_t total = offsets[-1].item<std::int64_t>();
  const auto cuda = at::device(at::kCUDA);
  const at::Tensor q = at::randn({batch, heads, head_dim}, gen).div_(8).to(cuda);
  const at::Tensor keys = at::randn({total, head_dim}, gen).to(cuda);
  const at::Tensor weights = at::randn({batch, heads}, gen).div_(8).to(cuda);
  // The ATen loop always runs in bf16 (ATen has no batched fp8 path); samebits in `dtype`.
  std::vector<IndexerInputs> items;
  for (std::int64_t b = 0; b < batch; ++b) {
    IndexerInputs item;
    item.q = q[b].to(at::kBFloat16);
    item.keys = keys.narrow(0, offsets[b].item<std::int64_t>(), lengths[b].item<std::int64_t>())
                    .to(at::kBFloat16);
    item.weights = weights[b].contiguous();
    items.push_back(item);
  }
  std::optional<at::Tensor> q_scale, k_scale;
  at::Tensor q_in = q.to(at::kBFloat16), keys_in = keys.to(at::kBFloat16);
  if (dtype == at::kFloat8_e4m3fn) {
    q_scale = at::full({batch}, 1.0f / 64, cuda);  // |q| * 64 and |K| * 64 stay below 448
    k_scale = at::full({batch}, 1.0f / 64, cuda);
    q_in = (q * 64).to(dtype);
    keys_in = (keys * 64).to(dtype);
  }
  const at::Tensor d_offsets = offsets.cuda();
  IndexerOutputs out;
  const std::string span = shortest == 4096 && longest == 8192
                               ? std::string()
                               : fmt::format(" L {}..{}", shortest, longest);
  Row row("indexer",
          fmt::format("B={}{} {}", batch, span, dtype == at::kBFloat16 ? "bf16" : "fp8 e4m3"),
          "per-item aten loop (bf16)");
  row.baseline_us = median_us([&] { indexer_loop(items, k); }, reps);
  row.samebits_us = median_us(
      [&] {
        // As a decode step calls it: max_length known, no host check of the offsets (unsafe).
        out = invariant_indexer(q_in, keys_in, d_offsets, weights, k, longest, q_scale, k_scale,
                                /*unsafe=*/true);
      },
      reps);
  row.bytes = static_cast<double>(keys_in.numel() * keys_in.element_size());
  // Item 0 alone must give the bits it has in the batch.
  const std::int64_t l0 = lengths[0].item<std::int64_t>();
  std::optional<at::Tensor> qs0, ks0;
  if (q_scale) qs0 = q_scale->narrow(0, 0, 1);
  if (k_scale) ks0 = k_scale->narrow(0, 0, 1);
  const IndexerOutputs alone =
      invariant_indexer(q_in.narrow(0, 0, 1), keys_in.narrow(0, 0, l0),
                        at::tensor({std::int64_t{0}, l0}, at::kLong).cuda(),
                        weights.narrow(0, 0, 1), k, l0, qs0, ks0);
  row.checked = at::equal(alone.top_indices[0], out.top_indices[0]) &&
                at::equal(alone.scores.view(at::kInt), out.scores.narrow(0, 0, l0).view(at::kInt));
  row.check = "item 0 alone = in batch";
  if (batch == 4) {  // and the whole batch equals the CPU twin (seconds on the CPU: once)
    std::optional<at::Tensor> qs, ks;
    if (q_scale) qs = q_scale->cpu();
    if (k_scale) ks = k_scale->cpu();
    const IndexerOutputs twin =
        invariant_indexer(q_in.cpu(), keys_in.cpu(), offsets, weights.cpu(), k, longest, qs, ks);
    row.checked = row.checked && at::equal(twin.top_indices, out.top_indices.cpu()) &&
                  at::equal(twin.scores.view(at::kInt), out.scores.cpu().view(at::kInt));
    row.check += ", = CPU twin";
  }
  return row;
}

}  // namespace

std::vector<Row> indexer_rows(int reps) {
  std::vector<Row> rows;
  for (std::int64_t batch : {4, 8, 16, 31}) rows.push_back(indexer_row(batch, at::kBFloat16, reps));
  for (std::int64_t batch : {4, 31}) rows.push_back(indexer_row(batch, at::kFloat8_e4m3fn, reps));
  // Issue 14: one long item (the decode of a 128k context), at least 10x over the loop.
  Row long_item = indexer_row(1, at::kBFloat16, reps, 131072, 131072);
  long_item.target = 10.0;
  rows.push_back(long_item);
  return rows;
}

}  // namespace samebits::bench
