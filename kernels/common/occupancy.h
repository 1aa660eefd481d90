// How many blocks of a kernel the current GPU holds at once, asked of the driver once per kernel,
// device, block size and shared memory: a decode loop launches the same kernels every step.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <tuple>

namespace samebits::kernels {

// Blocks of `kernel` (launched with `threads` threads and `smem` bytes of dynamic shared memory)
// resident on the whole current device; 0 on a CUDA error or where none fits (not remembered: a
// kernel asked before its shared-memory limit is raised fits once it is).
inline int resident_blocks(const void* kernel, int threads, std::size_t smem) {
  static std::mutex mutex;
  static std::map<std::tuple<const void*, int, int, std::size_t>, int> known;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return 0;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_tuple(kernel, device, threads, smem);
  const auto at = known.find(key);
  if (at != known.end()) return at->second;
  int sms = 0, per_sm = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem) != cudaSuccess)
    return 0;
  if (per_sm == 0) return 0;
  return known[key] = sms * per_sm;
}

// The current device's multiprocessor count, asked of the driver once per device; 0 on an error.
inline int multiprocessors() {
  static std::mutex mutex;
  static std::map<int, int> known;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return 0;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto at = known.find(device);
  if (at != known.end()) return at->second;
  int sms = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) return 0;
  return known[device] = sms;
}

}  // namespace samebits::kernels
