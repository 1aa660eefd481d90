// Chooses where cases run: "auto" means CUDA when a GPU is visible, else the CPU. Asking for CUDA
// on a machine without one is a usage error (exit 2, before any work), not a silent fallback.
#include "harness/device_choice.h"

#include <ATen/cuda/CUDAContext.h>

#include "common/errors.h"

namespace samebits {

bool cuda_available() {
  return at::hasCUDA() && at::cuda::device_count() > 0;
}

int cuda_device_count() {
  return at::hasCUDA() ? static_cast<int>(at::cuda::device_count()) : 0;
}

at::Device choose_device(const std::string& requested) {
  if (requested == "cpu") return at::Device(at::kCPU);
  if (requested == "cuda") {
    if (!cuda_available()) {
      throw ContractError(
          "the run asks for CUDA (--device cuda, or a --case id on cuda) but no CUDA GPU is "
          "visible here: run it on a machine with one, or on the CPU (--device cpu, or the case "
          "id with /cpu/)");
    }
    return at::Device(at::kCUDA, 0);
  }
  return cuda_available() ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU);
}

}  // namespace samebits
