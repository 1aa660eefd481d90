// Reduction rows: torch.ops.samebits.sum against at::sum on large inputs (the bandwidth
// target), each checked bit for bit against the CPU twin on the same input.
#include "bench/bench_rows.h"
#include "kernels/reduce/binding.h"

namespace samebits::bench {
namespace {

Row reduce_row(const std::string& name, std::vector<std::int64_t> shape, std::int64_t dim,
               at::ScalarType dtype, int reps) {
  const at::Tensor x = at::randn(shape, at::device(at::kCUDA)).to(dtype);
  at::Tensor ours;
  Row row("reduce", name, "at::sum");
  row.baseline_us = median_us([&] { x.sum(dim); }, reps);
  row.samebits_us = median_us([&] { ours = invariant_reduce(x, dim, false); }, reps);
  const at::Tensor twin = invariant_reduce(x.cpu(), dim, false);
  row.checked = at::equal(twin.view(at::kInt), ours.cpu().view(at::kInt));
  row.check = "= CPU twin";
  row.bytes = static_cast<double>(x.numel() * x.element_size() + ours.numel() * 4);
  return row;
}

}  // namespace

std::vector<Row> reduce_rows(int reps) {
  return {reduce_row("sum(0) f32 [64, 2^20]", {64, 1 << 20}, 0, at::kFloat, reps),
          reduce_row("sum(1) f32 [64, 2^20]", {64, 1 << 20}, 1, at::kFloat, reps),
          reduce_row("sum(1) f32 [2^20, 64]", {1 << 20, 64}, 1, at::kFloat, reps),
          reduce_row("sum(1) f32 [2^16, 1000]", {1 << 16, 1000}, 1, at::kFloat, reps),
          reduce_row("sum(0) bf16 [64, 2^20]", {64, 1 << 20}, 0, at::kBFloat16, reps),
          reduce_row("sum(1) bf16 [8192, 8192]", {8192, 8192}, 1, at::kBFloat16, reps),
          reduce_row("sum(1) f32 [1, 2^26]", {1, 1 << 26}, 1, at::kFloat, reps)};
}

}  // namespace samebits::bench
