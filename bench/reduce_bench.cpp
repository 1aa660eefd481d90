// Reduction grid: torch.ops.samebits.sum against the faster of at::sum and at::sum(dtype=float32)
// over [R, C] inputs (dims 0 and 1, row-major and transposed, three dtypes), each point checked bit
// for bit against the CPU twin. Issue 14's target: 0.85x at every point of at least 1 MB.
#include <fmt/format.h>

#include <algorithm>

#include "bench/bench_rows.h"
#include "kernels/reduce/binding.h"

namespace samebits::bench {
namespace {

constexpr double kReduceTarget = 0.85;
constexpr std::int64_t kMaxElements = std::int64_t{1} << 27;

const char* dtype_name(at::ScalarType t) {
  return t == at::kFloat ? "f32" : t == at::kBFloat16 ? "bf16" : "f16";
}

// x is [rows, cols]: row-major, or (transposed) the transpose of a row-major [cols, rows].
Row reduce_row(at::ScalarType dtype, std::int64_t rows, std::int64_t cols, std::int64_t dim,
               bool transposed, int reps) {
  const at::Tensor x = transposed ? at::randn({cols, rows}, at::device(at::kCUDA)).to(dtype).t()
                                  : at::randn({rows, cols}, at::device(at::kCUDA)).to(dtype);
  at::Tensor ours;
  Row row("reduce",
          fmt::format("sum({}) {} [{}, {}]{}", dim, dtype_name(dtype), rows, cols,
                      transposed ? " T" : ""),
          dtype == at::kFloat ? "at::sum" : "at::sum (best of dtype, f32)");
  row.baseline_us = median_us([&] { at::sum(x, dim); }, reps);
  if (dtype != at::kFloat) {
    row.baseline_us =
        std::min(row.baseline_us, median_us([&] { at::sum(x, dim, false, at::kFloat); }, reps));
  }
  row.samebits_us = median_us([&] { ours = invariant_reduce(x, dim, false); }, reps);
  const at::Tensor twin = invariant_reduce(x.cpu(), dim, false);
  row.checked = at::equal(twin.view(at::kInt), ours.cpu().view(at::kInt));
  row.check = "= CPU twin";
  row.bytes = static_cast<double>(x.numel() * x.element_size() + ours.numel() * 4);
  row.target = kReduceTarget;
  row.target_min_bytes = 1 << 20;
  return row;
}

}  // namespace

// One generator over named axes (dtype, dim, layout, R, C); points past kMaxElements are skipped.
std::vector<Row> reduce_rows(int reps, bool full) {
  const std::vector<std::int64_t> rs =
      full ? std::vector<std::int64_t>{64, 256, 1024, 4096, 16384, 65536}
           : std::vector<std::int64_t>{64, 1024, 16384, 65536};
  const std::vector<std::int64_t> cs = full ? std::vector<std::int64_t>{64, 256, 1024, 4096, 16384}
                                            : std::vector<std::int64_t>{64, 1024, 4096, 16384};
  std::vector<Row> out;
  for (const at::ScalarType dtype : {at::kFloat, at::kBFloat16, at::kHalf}) {
    for (const std::int64_t dim : {0, 1}) {
      for (const bool transposed : {false, true}) {
        for (const std::int64_t r : rs) {
          for (const std::int64_t c : cs) {
            if (r * c > kMaxElements) continue;  // (the grid's bound: 2^27 elements)
            out.push_back(reduce_row(dtype, r, c, dim, transposed, reps));
          }
        }
      }
    }
  }
  return out;
}

}  // namespace samebits::bench
