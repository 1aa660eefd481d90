// RMSNorm grid: torch.ops.samebits.rms_norm and add_rms_norm against at::rms_norm (and ATen's add
// then at::rms_norm) over [rows, D] in bf16 and f32, each point checked bit for bit against the
// CPU twin. Issue 29's target: at least ATen's speed at every point of 1 MB and above.
#include <fmt/format.h>

#include "bench/bench_rows.h"
#include "kernels/norm/binding.h"

namespace samebits::bench {
namespace {

Row norm_row(at::ScalarType dtype, std::int64_t rows, std::int64_t d, bool add, int reps) {
  const auto cuda = at::device(at::kCUDA);
  const at::Tensor x = at::randn({rows, d}, cuda).to(dtype);
  const at::Tensor r = at::randn({rows, d}, cuda).to(dtype);
  const at::Tensor w = at::rand({d}, cuda).add_(0.5).to(dtype);
  Row row("norm",
          fmt::format("{} {} [{}, {}]", add ? "add_rms_norm" : "rms_norm",
                      dtype == at::kFloat ? "f32" : "bf16", rows, d),
          add ? "x + r, at::rms_norm" : "at::rms_norm");
  if (add) {
    row.baseline_us = median_us(
        [&] {
          const at::Tensor h = x + r;
          at::rms_norm(h, {d}, w, 1e-6);
        },
        reps);
  } else {
    row.baseline_us = median_us([&] { at::rms_norm(x, {d}, w, 1e-6); }, reps);
  }
  at::Tensor ours, ours_h;
  row.samebits_us = median_us(
      [&] {
        if (add) {
          std::tie(ours, ours_h) = invariant_add_rms_norm(x, r, w, 1e-6);
        } else {
          ours = invariant_rms_norm(x, w, 1e-6);
        }
      },
      reps);
  const at::Tensor twin = add ? invariant_add_rms_norm(x.cpu(), r.cpu(), w.cpu(), 1e-6).first
                              : invariant_rms_norm(x.cpu(), w.cpu(), 1e-6);
  const at::ScalarType bits = dtype == at::kFloat ? at::kInt : at::kShort;
  row.checked = at::equal(twin.view(bits), ours.cpu().view(bits));
  row.check = "= CPU twin";
  // Moved: x (and r, and h written) read and y written.
  row.bytes = static_cast<double>(x.numel() * x.element_size()) * (add ? 4.0 : 2.0);
  row.target = 1.0;
  row.target_min_bytes = 1 << 20;
  return row;
}

}  // namespace

// rows x D: decode (1 to 64 rows) and prefill (2048 to 16384 rows) at the hidden sizes of the
// bench decoder and of Llama-class models (full: more rows and sizes).
std::vector<Row> norm_rows(int reps, bool full) {
  const std::vector<std::int64_t> sizes = full ? std::vector<std::int64_t>{1024, 2048, 4096, 8192}
                                               : std::vector<std::int64_t>{1024, 4096, 8192};
  const std::vector<std::int64_t> row_counts =
      full ? std::vector<std::int64_t>{1, 8, 64, 512, 2048, 16384}
           : std::vector<std::int64_t>{1, 64, 2048, 16384};
  std::vector<Row> out;
  for (const at::ScalarType dtype : {at::kBFloat16, at::kFloat}) {
    for (const bool add : {false, true}) {
      for (const std::int64_t d : sizes) {
        for (const std::int64_t rows : row_counts)
          out.push_back(norm_row(dtype, rows, d, add, reps));
      }
    }
  }
  return out;
}

}  // namespace samebits::bench
