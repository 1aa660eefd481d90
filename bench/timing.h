// What every benchmark row shares: CUDA-event timing (median of many runs, after warm-up) and the
// row it produces, with the baseline it was measured against and whether its output was checked.
#pragma once

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace samebits::bench {

// Median time of fn in microseconds: five warm-up calls, then `reps` timed runs, each between
// two events on the current stream.
inline double median_us(const std::function<void()>& fn, int reps) {
  for (int i = 0; i < 5; ++i) fn();
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  cudaStreamSynchronize(stream);
  std::vector<double> times;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
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
  Row(std::string family_, std::string name_, std::string baseline_)
      : family(std::move(family_)), name(std::move(name_)), baseline(std::move(baseline_)) {}
  std::string family;    // reduce, topk, topk_small, indexer
  std::string name;      // the case
  std::string baseline;  // what samebits is timed against (ATen, same inputs, same run)
  double baseline_us = 0;
  double samebits_us = 0;
  double bytes = 0;      // bytes the op must move, for GB/s (0: not a bandwidth case)
  bool checked = false;  // samebits' output equals its oracle (named in `check`)
  std::string check;
  double target = 0;            // the speedup the issue asks of this point (0: none)
  double target_min_bytes = 0;  // the target holds for points moving at least this many bytes
};

}  // namespace samebits::bench
