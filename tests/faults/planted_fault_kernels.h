// Test-only CUDA kernels that fail on purpose, for the planted-fault op: one writes far out of
// bounds (an illegal address, which breaks the CUDA context), one spins forever (only a kill ends
// it).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/common/status.h"

namespace samebits::test_faults {

enum class GpuFault { out_of_bounds, spin_forever };

// Launches the fault on `stream` against buffer[0, n) (float32 device memory, all zeros): the
// launch is checked; the fault itself shows at the next synchronization (an illegal address) or
// never returns (a spin).
kernels::Status plant_gpu_fault(GpuFault fault, float* buffer, std::int64_t n, cudaStream_t stream);

}  // namespace samebits::test_faults
