// Softmax grid: torch.ops.samebits.softmax / log_softmax against at::softmax / at::log_softmax over
// [rows, V] (bf16 and f32, rows from decode's 1 to 64 up to many short rows), each point checked
// bit for bit against the CPU twin. Issue 29's target: at least ATen's speed at 1 MB and above.
#include <fmt/format.h>

#include "bench/bench_rows.h"
#include "kernels/softmax/binding.h"

namespace samebits::bench {
namespace {

constexpr double kSoftmaxTarget = 1.0;
constexpr std::int64_t kMaxElements = std::int64_t{1} << 27;

Row softmax_row(at::ScalarType dtype, std::int64_t rows, std::int64_t length, bool log, int reps) {
  const at::Tensor x = at::randn({rows, length}, at::device(at::kCUDA)).mul(3).to(dtype);
  const char* name = log ? "log_softmax" : "softmax";
  Row row("softmax",
          fmt::format("{} {} [{}, {}]", name, dtype == at::kFloat ? "f32" : "bf16", rows, length),
          fmt::format("at::{}", name));
  row.baseline_us = median_us([&] { log ? at::log_softmax(x, -1) : at::softmax(x, -1); }, reps);
  at::Tensor ours;
  row.samebits_us = median_us([&] { ours = invariant_softmax(x, std::nullopt, log); }, reps);
  const at::Tensor twin = invariant_softmax(x.cpu(), std::nullopt, log);
  const at::ScalarType bits = dtype == at::kFloat ? at::kInt : at::kShort;
  row.checked = at::equal(twin.view(bits), ours.cpu().view(bits));
  row.check = "= CPU twin";
  row.bytes = 2.0 * static_cast<double>(x.numel() * x.element_size());
  row.target = kSoftmaxTarget;
  row.target_min_bytes = 1 << 20;
  return row;
}

}  // namespace

// rows x V: the decode vocabularies (32000, 128256, 256000) at 1 to 64 rows, and shorter rows in
// bulk (full: more of each).
std::vector<Row> softmax_rows(int reps, bool full) {
  const std::vector<std::int64_t> vocab{32000, 128256, 256000};
  const std::vector<std::int64_t> decode_rows =
      full ? std::vector<std::int64_t>{1, 4, 16, 64} : std::vector<std::int64_t>{1, 64};
  const std::vector<std::int64_t> short_lengths =
      full ? std::vector<std::int64_t>{100, 512, 1000, 2048, 4096, 8192}
           : std::vector<std::int64_t>{512, 2048, 8192};
  std::vector<Row> out;
  for (const at::ScalarType dtype : {at::kBFloat16, at::kFloat}) {
    for (const bool log : {false, true}) {
      for (const std::int64_t v : vocab) {
        for (const std::int64_t r : decode_rows) out.push_back(softmax_row(dtype, r, v, log, reps));
      }
      for (const std::int64_t v : short_lengths) {
        for (const std::int64_t r : {1024, 16384}) {
          if (r * v > kMaxElements) continue;
          out.push_back(softmax_row(dtype, r, v, log, reps));
        }
      }
    }
  }
  return out;
}

}  // namespace samebits::bench
