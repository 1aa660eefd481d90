// Top-k rows: the batched variable-length top-k (B rows of 4096..8192, K = 2048) against B
// at::topk calls and one -inf padded stable argsort; the small-K grid against at::topk.
#include <fmt/format.h>

#include <cmath>

#include "bench/bench_rows.h"
#include "kernels/topk/binding.h"
#include "kernels/topk/invariant_topk.h"

namespace samebits::bench {
namespace {

// Rows of x's selection equal, bit for bit and index for index, to the stable sort's first k.
bool equals_stable_sort(const at::Tensor& x, std::int64_t k, const at::Tensor& values,
                        const at::Tensor& indices) {
  auto [sorted, order] = at::sort(x, /*stable=*/true, -1, /*descending=*/true);
  return at::equal(order.narrow(-1, 0, k), indices) &&
         at::equal(sorted.narrow(-1, 0, k).contiguous().view(at::kInt),
                   values.contiguous().view(at::kInt));
}

std::vector<Row> varlen_rows(std::int64_t batch, double zero_fraction, int reps) {
  const std::int64_t k = 2048, longest = 8192;
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(batch);
  const at::Tensor lengths =
      at::randint(4096, longest + 1, {batch}, gen, at::TensorOptions().dtype(at::kLong));
  const at::Tensor offsets = at::cat({at::zeros({1}, at::kLong), lengths.cumsum(0)}).cuda();
  at::Tensor packed = at::randn({offsets[-1].item<std::int64_t>()}, at::device(at::kCUDA));
  if (zero_fraction > 0) packed.relu_();  // half the scores exactly zero: ties
  std::vector<at::Tensor> items;
  at::Tensor padded = at::full({batch, longest}, -INFINITY, at::device(at::kCUDA));
  for (std::int64_t b = 0; b < batch; ++b) {
    const std::int64_t start = offsets[b].item<std::int64_t>();
    const std::int64_t length = lengths[b].item<std::int64_t>();
    items.push_back(packed.narrow(0, start, length).clone());
    padded[b].narrow(0, 0, length).copy_(items.back());
  }
  at::Tensor values, indices;
  const double ours = median_us(
      [&] {  // max_length known, no host check of the offsets (unsafe), as in a decode step
        std::tie(values, indices) =
            invariant_topk_varlen(packed, offsets, k, longest, "auto", true);
      },
      reps);
  const double loop = median_us(
      [&] {
        for (const auto& item : items) at::topk(item, k);
      },
      reps);
  const double sort = median_us(
      [&] { at::argsort(padded, /*stable=*/true, -1, /*descending=*/true).narrow(1, 0, k); }, reps);
  const bool same = equals_stable_sort(padded, k, values, indices);
  const std::string name =
      fmt::format("B={} L 4096..8192 K=2048{}", batch, zero_fraction > 0 ? " relu" : "");
  const std::string check = "= stable argsort";
  Row against_loop("topk", name, fmt::format("{} x at::topk", batch));
  against_loop.baseline_us = loop;
  Row against_sort("topk", name, "padded stable argsort");
  against_sort.baseline_us = sort;
  for (Row* row : {&against_loop, &against_sort}) {
    row->samebits_us = ours;
    row->checked = same;
    row->check = check;
  }
  return {against_loop, against_sort};
}

}  // namespace

std::vector<Row> topk_rows(int reps) {
  std::vector<Row> rows;
  for (std::int64_t batch : {4, 31}) {
    for (const Row& r : varlen_rows(batch, 0.0, reps)) rows.push_back(r);
  }
  for (const Row& r : varlen_rows(31, 0.5, reps)) rows.push_back(r);
  return rows;
}

// Issue 14's grid: B rows of L scores, topk_varlen (offsets, max_length L, unsafe) against one
// at::topk over the rectangular batch; at least as fast everywhere, twice at B = 1, L = 131072,
// k = 2048 (few long rows: one block per row leaves most SMs idle). With `full`, rows longer than
// radix_select's key cache are also timed on the kernel auto did not pick (untargeted), to show
// where the switch sits.
std::vector<Row> topk_grid_rows(int reps, bool full) {
  std::vector<Row> rows;
  for (const std::int64_t batch : {1, 4, 31, 128}) {
    for (const std::int64_t length : {4096, 32768, 131072}) {
      for (const std::int64_t k : {64, 2048}) {
        const at::Tensor x = at::randn({batch, length}, at::device(at::kCUDA));
        const at::Tensor offsets =
            at::arange(0, (batch + 1) * length, length, at::device(at::kCUDA).dtype(at::kLong));
        const at::Tensor flat = x.view({-1});
        at::Tensor values, indices;
        Row row("topk_grid", fmt::format("B={} L={} K={}", batch, length, k),
                "at::topk, rectangular batch");
        row.baseline_us = median_us([&] { at::topk(x, k); }, reps);
        row.samebits_us = median_us(
            [&] {
              std::tie(values, indices) =
                  invariant_topk_varlen(flat, offsets, k, length, "auto", true);
            },
            reps);
        row.bytes = static_cast<double>(x.numel() * 4);
        row.checked = equals_stable_sort(x, k, values, indices);
        row.check = "= stable argsort";
        row.target = batch == 1 && length == 131072 && k == 2048 ? 2.0 : 1.0;
        rows.push_back(row);
        if (full && length > 16384) {  // the kernel auto did not take, beside it
          kernels::TopkProblem shape;
          shape.rows = batch;
          shape.k = k;
          shape.max_length = length;
          const char* other = kernels::topk_prefers_split(shape) ? "radix_select" : "split_select";
          Row alternative("topk_grid_other", row.name + " " + other, row.baseline);
          alternative.baseline_us = row.baseline_us;
          alternative.samebits_us = median_us(
              [&] {
                std::tie(values, indices) =
                    invariant_topk_varlen(flat, offsets, k, length, other, true);
              },
              reps);
          alternative.bytes = row.bytes;
          alternative.checked = equals_stable_sort(x, k, values, indices);
          alternative.check = row.check;
          rows.push_back(alternative);
        }
      }
    }
  }
  return rows;
}

std::vector<Row> topk_small_rows(int reps) {
  std::vector<Row> rows;
  for (std::int64_t k : {16, 32}) {
    for (std::int64_t n : {64, 128, 256, 512, 1024, 2048}) {
      for (std::int64_t r : {128, 1024, 4096, 16384}) {
        const at::Tensor x = at::randn({r, n}, at::device(at::kCUDA));
        at::Tensor values, indices;
        Row row("topk_small", fmt::format("K={} N={} rows={}", k, n, r), "at::topk");
        row.baseline_us = median_us([&] { at::topk(x, k); }, reps);
        row.samebits_us =
            median_us([&] { std::tie(values, indices) = invariant_topk(x, k); }, reps);
        row.bytes = static_cast<double>(x.numel() * 4);
        row.checked = equals_stable_sort(x, k, values, indices);
        row.check = "= stable argsort";
        rows.push_back(row);
      }
    }
  }
  return rows;
}

}  // namespace samebits::bench
