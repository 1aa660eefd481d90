// Linear grid: torch.ops.samebits.linear against at::linear (cuBLAS) over M x (K, N) in bf16, from
// decode (M 1 to 64, where both stream W: GB/s against the H100's 3.35 TB/s) to prefill. Each
// point is checked against cuBLAS within the order header's float64 bound's scale (loosely: a
// tolerance, not bits; the twin and the GPU tests check the bits).
#include <fmt/format.h>

#include "bench/bench_rows.h"
#include "kernels/linear/binding.h"

namespace samebits::bench {
namespace {

Row linear_row(std::int64_t m, std::int64_t k, std::int64_t n, int reps) {
  const auto cuda = at::device(at::kCUDA);
  const at::Tensor x = at::randn({m, k}, cuda).to(at::kBFloat16);
  const at::Tensor w =
      at::randn({n, k}, cuda).div_(std::sqrt(static_cast<double>(k))).to(at::kBFloat16);
  Row row("linear", fmt::format("bf16 M={} K={} N={}", m, k, n), "at::linear (cuBLAS)");
  at::Tensor theirs, ours;
  row.baseline_us = median_us([&] { theirs = at::linear(x, w); }, reps);
  row.samebits_us = median_us([&] { ours = invariant_linear(x, w); }, reps);
  // Both within a few bf16 ulps of each other (each is within its bound of float64).
  const double err = (ours.to(at::kFloat) - theirs.to(at::kFloat)).abs().max().item<double>();
  const double scale = theirs.to(at::kFloat).abs().max().item<double>();
  row.checked = err <= scale * std::ldexp(1.0, -6);
  row.check = fmt::format("max |ours - cuBLAS| {:.3g} of max |y| {:.3g}", err, scale);
  row.bytes = 2.0 * static_cast<double>(n * k + m * k + m * n);
  if (m >= 2048) row.target = 0.8;  // prefill: >= 80 % of cuBLAS
  if (m <= 64) row.target = 0.9;    // decode: >= 90 % of cuBLAS
  return row;
}

}  // namespace

// M in decode (1, 16, 64) and prefill (2048, 8192) sizes over the (K, N) and the bench
// decoder's (full: more M).
std::vector<Row> linear_rows(int reps, bool full) {
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes{
      {4096, 4096}, {4096, 14336}, {14336, 4096}, {4096, 128256},
      {1024, 2816}, {2816, 1024},  {1024, 32000}};
  const std::vector<std::int64_t> ms =
      full ? std::vector<std::int64_t>{1, 4, 16, 32, 64, 2048, 4096, 8192}
           : std::vector<std::int64_t>{1, 16, 64, 2048, 8192};
  std::vector<Row> out;
  for (const auto& [k, n] : shapes) {
    for (const std::int64_t m : ms) out.push_back(linear_row(m, k, n, reps));
  }
  return out;
}

}  // namespace samebits::bench
