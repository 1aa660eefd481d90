// samebits_bench: each bundled kernel against the ATen op(s) it stands beside, timed in the same
// run on the same inputs (CUDA events, median of many), with ratios, bandwidth and checks.
#include <ATen/ATen.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include "bench/bench_rows.h"
#include "common/atomic_file.h"
#include "harness/environment.h"

namespace samebits::bench {

namespace {

using Family = std::vector<Row> (*)(int reps, bool full);
const std::map<std::string, Family> kFamilies = {
    {"reduce", reduce_rows},
    {"softmax", softmax_rows},
    {"norm", norm_rows},
    {"linear", linear_rows},
    {"topk", [](int reps, bool) { return topk_rows(reps); }},
    {"topk_small", [](int reps, bool) { return topk_small_rows(reps); }},
    {"topk_grid", [](int reps, bool full) { return topk_grid_rows(reps, full); }},
    {"indexer", [](int reps, bool) { return indexer_rows(reps); }},
    {"decoder", [](int reps, bool) { return decoder_rows(reps); }}};

// One family's compact summary: geomean and slowest speedup, and the points below their target.
void print_family_summary(const std::string& family, const std::vector<Row>& rows) {
  double log_sum = 0, worst = INFINITY;
  const Row* slowest = nullptr;
  int n = 0, targeted = 0;
  std::vector<const Row*> below;
  for (const Row& r : rows) {
    if (r.family != family) continue;
    const double ratio = r.baseline_us / r.samebits_us;
    log_sum += std::log(ratio);
    if (ratio < worst) worst = ratio, slowest = &r;
    ++n;
    if (r.target > 0 && r.bytes >= r.target_min_bytes) {
      ++targeted;
      if (ratio < r.target) below.push_back(&r);
    }
  }
  if (n == 0) return;
  fmt::print("{}: {} points, geomean speedup {:.2f}, slowest {:.2f} ({})", family, n,
             std::exp(log_sum / n), worst, slowest->name);
  if (targeted > 0) fmt::print(", {} of {} targeted points below target", below.size(), targeted);
  fmt::print("\n");
  for (std::size_t i = 0; i < below.size() && i < 8; ++i) {
    fmt::print("  below {:.2f}: {} at {:.2f}\n", below[i]->target, below[i]->name,
               below[i]->baseline_us / below[i]->samebits_us);
  }
}

int run(int reps, const std::vector<std::string>& only, const std::string& out_path, bool full) {
  if (!at::hasCUDA()) {
    fmt::print(stderr, "samebits_bench: needs a CUDA GPU\n");
    return 3;
  }
  std::vector<Row> rows;
  bool all_checked = true;
  for (const auto& [family, measure] : kFamilies) {
    if (!only.empty() && std::find(only.begin(), only.end(), family) == only.end()) continue;
    try {
      for (Row& r : measure(reps, full)) rows.push_back(std::move(r));
    } catch (const std::exception& e) {  // one family's failure leaves the others' rows
      fmt::print(stderr, "samebits_bench: {} failed: {}\n", family, e.what());
      all_checked = false;
    }
  }
  fmt::print("{:<10} {:<28} {:<26} {:>10} {:>11} {:>8} {:>9} {}\n", "family", "case", "baseline",
             "base us", "samebits us", "speedup", "ours GB/s", "check");
  Json results = Json::array();
  for (const Row& r : rows) {
    const double ratio = r.baseline_us / r.samebits_us;
    fmt::print("{:<10} {:<28} {:<26} {:>10.1f} {:>11.1f} {:>8.2f} {:>9} {}\n", r.family, r.name,
               r.baseline, r.baseline_us, r.samebits_us, ratio,
               r.bytes > 0 ? fmt::format("{:.0f}", r.bytes / r.samebits_us / 1e3) : "-",
               r.checked ? r.check : "FAILED: " + r.check);
    all_checked = all_checked && r.checked;
    results.push_back(Json{{"family", r.family},
                           {"case", r.name},
                           {"baseline", r.baseline},
                           {"baseline_us", r.baseline_us},
                           {"samebits_us", r.samebits_us},
                           {"speedup", ratio},
                           {"bytes", r.bytes},
                           {"check", r.check},
                           {"checked", r.checked},
                           {"target", r.target > 0 ? Json(r.target) : Json()},
                           {"target_min_bytes", r.target_min_bytes}});
  }
  for (const auto& [family, measure] : kFamilies) print_family_summary(family, rows);
  const Environment env = environment_block(at::Device(at::kCUDA, 0));
  fmt::print("(speedup = baseline time / samebits time; median of {} runs; GPU {})\n", reps,
             env.gpu ? env.gpu->name : std::string("?"));
  if (!out_path.empty()) {
    write_file_atomically(out_path, Json{{"environment", Json(env)},
                                         {"tool", tool_info()},
                                         {"created", utc_timestamp()},
                                         {"reps", reps},
                                         {"grid", full ? "full" : "default"},
                                         {"results", results}}
                                            .dump(2) +
                                        "\n");
  }
  return all_checked ? 0 : 1;
}

}  // namespace
}  // namespace samebits::bench

int main(int argc, char** argv) {
  CLI::App app{"samebits_bench: bundled kernels vs ATen, same run, same inputs"};
  int reps = 50;
  std::vector<std::string> only;
  std::string out;
  app.add_option("--reps", reps, "timed runs per measurement (median reported)");
  app.add_option("--only", only, "families to run (default: all)")
      ->check(CLI::IsMember({"reduce", "softmax", "norm", "linear", "topk", "topk_small",
                             "topk_grid", "indexer", "decoder"}));
  app.add_option("--out", out, "write the results as JSON here");
  bool full = false;
  app.add_flag("--full", full, "run the whole grid of each family (default: a coarser grid)");
  CLI11_PARSE(app, argc, argv);
  return samebits::bench::run(reps, only, out, full);
}
