// Chooses where cases run: "auto" means CUDA when a GPU is visible, else the CPU. Asking for CUDA
// on a machine without one is a usage error (exit 2, before any work), not a silent fallback.
#pragma once

#include <ATen/ATen.h>

#include <stdexcept>
#include <string>

namespace samebits {

class InfrastructureError : public std::runtime_error {
 public:
  explicit InfrastructureError(const std::string& m) : std::runtime_error(m) {}
};

bool cuda_available();
// The GPUs this process sees (CUDA_VISIBLE_DEVICES applies); 0 without CUDA.
int cuda_device_count();
// "auto", "cpu" or "cuda" -> a device. Throws ContractError (a usage error) for cuda without a
// GPU: --device cuda, or a --case id on cuda, can never run here.
at::Device choose_device(const std::string& requested);

}  // namespace samebits
