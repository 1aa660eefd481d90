// Opting a kernel into more than 48 KiB of shared memory, once per kernel and device: the driver
// calls are slow enough to dominate a small launch if made on every call.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <utility>

#include "kernels/common/cuda_status.h"

namespace samebits::kernels {

// Lets `kernel` take up to the device's opt-in maximum of dynamic shared memory (less its static
// shared memory) and says whether `dynamic_bytes` fits: invalid_argument when it does not.
template <typename Kernel>
Status allow_dynamic_shared_memory(Kernel* kernel, std::size_t dynamic_bytes) {
  static std::mutex mutex;
  static std::map<std::pair<const void*, int>, std::size_t> allowed;  // (kernel, device) -> bytes
  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return cuda_failure(e);
  const auto key = std::make_pair(reinterpret_cast<const void*>(kernel), device);
  const std::lock_guard<std::mutex> lock(mutex);
  auto found = allowed.find(key);
  if (found == allowed.end()) {
    cudaFuncAttributes attributes{};
    int optin = 0;
    if (const cudaError_t e = cudaFuncGetAttributes(&attributes, kernel); e != cudaSuccess)
      return cuda_failure(e);
    if (const cudaError_t e =
            cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
        e != cudaSuccess)
      return cuda_failure(e);
    const int most = optin - static_cast<int>(attributes.sharedSizeBytes);
    if (const cudaError_t e =
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, most);
        e != cudaSuccess)
      return cuda_failure(e);
    found = allowed.emplace(key, static_cast<std::size_t>(most)).first;
  }
  return dynamic_bytes <= found->second ? Status::ok : Status::invalid_argument;
}

}  // namespace samebits::kernels
