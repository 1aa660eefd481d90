// samebits_bench: each bundled kernel against the ATen op it stands beside, timed in the same run
// on the same inputs (CUDA events, median of many), with the ratio and achieved bandwidth.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "harness/environment.h"
#include "kernels/reduce/binding.h"
#include "reports/atomic_file.h"

namespace samebits {
namespace {

// Median time of fn in microseconds: warm-up first, then `reps` timed runs, each between two
// events.
double median_us(const std::function<void()>& fn, int reps) {
  for (int i = 0; i < 5; ++i) fn();
  at::cuda::getCurrentCUDAStream().synchronize();
  std::vector<double> times;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(start, stream);
    fn();
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    times.push_back(ms * 1000.0);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

struct Row {
  std::string family, name;
  double aten_us, samebits_us, bytes;
  bool same_bits_as_twin;
};

Row reduce_row(const std::string& name, std::vector<std::int64_t> shape, std::int64_t dim,
               at::ScalarType dtype, int reps) {
  const at::Tensor x = at::randn(shape, at::device(at::kCUDA)).to(dtype);
  at::Tensor ours;
  const double aten = median_us([&] { x.sum(dim); }, reps);
  const double mine = median_us([&] { ours = invariant_reduce(x, dim, false); }, reps);
  // Timing means nothing if the kernel is wrong: check it against its CPU twin on this input.
  const at::Tensor twin = invariant_reduce(x.cpu(), dim, false);
  const bool same = at::equal(twin.view(at::kInt), ours.cpu().view(at::kInt));
  const double bytes = static_cast<double>(x.numel() * x.element_size() + ours.numel() * 4);
  return {"reduce", name, aten, mine, bytes, same};
}

int run(int reps, const std::string& out_path) {
  if (!at::hasCUDA()) {
    fmt::print(stderr, "samebits_bench: needs a CUDA GPU\n");
    return 3;
  }
  std::vector<Row> rows;
  rows.push_back(reduce_row("sum(0) f32 [64, 2^20]", {64, 1 << 20}, 0, at::kFloat, reps));
  rows.push_back(reduce_row("sum(1) f32 [64, 2^20]", {64, 1 << 20}, 1, at::kFloat, reps));
  rows.push_back(reduce_row("sum(1) f32 [2^20, 64]", {1 << 20, 64}, 1, at::kFloat, reps));
  rows.push_back(reduce_row("sum(1) f32 [2^16, 1000]", {1 << 16, 1000}, 1, at::kFloat, reps));
  rows.push_back(reduce_row("sum(0) bf16 [64, 2^20]", {64, 1 << 20}, 0, at::kBFloat16, reps));
  rows.push_back(reduce_row("sum(1) bf16 [8192, 8192]", {8192, 8192}, 1, at::kBFloat16, reps));
  rows.push_back(reduce_row("sum(1) f32 [1, 2^26]", {1, 1 << 26}, 1, at::kFloat, reps));

  const Json env = environment_block(at::Device(at::kCUDA, 0));
  fmt::print("{:<8} {:<28} {:>10} {:>12} {:>8} {:>11} {:>11} {}\n", "family", "case", "aten us",
             "samebits us", "ratio", "aten GB/s", "ours GB/s", "bits");
  Json results = Json::array();
  for (const auto& r : rows) {
    const double ratio = r.aten_us / r.samebits_us;
    fmt::print("{:<8} {:<28} {:>10.1f} {:>12.1f} {:>8.2f} {:>11.0f} {:>11.0f} {}\n", r.family,
               r.name, r.aten_us, r.samebits_us, ratio, r.bytes / r.aten_us / 1e3,
               r.bytes / r.samebits_us / 1e3, r.same_bits_as_twin ? "= twin" : "DIFFERS FROM TWIN");
    results.push_back(Json{{"family", r.family},
                           {"case", r.name},
                           {"aten_us", r.aten_us},
                           {"samebits_us", r.samebits_us},
                           {"speedup", ratio},
                           {"bytes", r.bytes},
                           {"same_bits_as_twin", r.same_bits_as_twin}});
  }
  fmt::print("(ratio = ATen time / samebits time; median of {} runs; GPU {})\n", reps,
             env["gpu"]["name"].get<std::string>());
  if (!out_path.empty()) {
    write_file_atomically(out_path, Json{{"environment", env},
                                         {"tool", tool_block()},
                                         {"created", utc_timestamp()},
                                         {"results", results}}
                                            .dump(2) +
                                        "\n");
  }
  for (const auto& r : rows) {
    if (!r.same_bits_as_twin) return 1;
  }
  return 0;
}

}  // namespace
}  // namespace samebits

int main(int argc, char** argv) {
  CLI::App app{"samebits_bench: bundled kernels vs ATen, same run, same inputs"};
  int reps = 50;
  std::string out;
  app.add_option("--reps", reps, "timed runs per measurement (median reported)");
  app.add_option("--out", out, "write the results as JSON here");
  CLI11_PARSE(app, argc, argv);
  return samebits::run(reps, out);
}
