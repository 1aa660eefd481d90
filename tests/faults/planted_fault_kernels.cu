// Test-only CUDA kernels that fail on purpose, for the planted-fault op: one writes far out of
// bounds (an illegal address, which breaks the CUDA context), one spins forever (only a kill ends
// it).
#include "tests/faults/planted_fault_kernels.h"

namespace samebits::test_faults {
namespace {

// 2^40 floats (4 TiB) past the buffer's end: no allocation reaches that far, so the write faults.
constexpr std::int64_t kFarPastTheEnd = std::int64_t{1} << 40;

__global__ void write_out_of_bounds(float* buffer, std::int64_t n, std::int64_t distance) {
  buffer[n + distance + threadIdx.x] = 1.0f;
}

// Waits for buffer[0] to become nonzero, which nothing ever writes: a kernel that never ends.
__global__ void spin_forever(const float* buffer) {
  const volatile float* flag = buffer;
  while (*flag == 0.0f) {
  }
}

}  // namespace

kernels::Status plant_gpu_fault(GpuFault fault, float* buffer, std::int64_t n,
                                cudaStream_t stream) {
  if (buffer == nullptr || n < 1) return kernels::Status::invalid_argument;
  switch (fault) {
    case GpuFault::out_of_bounds:
      write_out_of_bounds<<<1, 32, 0, stream>>>(buffer, n, kFarPastTheEnd);
      break;
    case GpuFault::spin_forever: spin_forever<<<1, 1, 0, stream>>>(buffer); break;
  }
  return cudaGetLastError() == cudaSuccess ? kernels::Status::ok : kernels::Status::cuda_error;
}

}  // namespace samebits::test_faults
