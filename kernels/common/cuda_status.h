// The CUDA error behind a kernel entry point's Status::cuda_error, kept per host thread: checking a
// launch with cudaGetLastError clears the runtime's own record, so the binding reads the error here.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/common/status.h"

namespace samebits::kernels {

// The error of the last Status::cuda_error this thread returned.
inline cudaError_t& last_cuda_error() {
  thread_local cudaError_t error = cudaSuccess;
  return error;
}

// Status::cuda_error, keeping `e` for the message (a failure with no error code: cudaErrorUnknown).
inline Status cuda_failure(cudaError_t e) {
  last_cuda_error() = e == cudaSuccess ? cudaErrorUnknown : e;
  return Status::cuda_error;
}

// Status::ok for cudaSuccess, else cuda_failure(e).
inline Status cuda_status(cudaError_t e) { return e == cudaSuccess ? Status::ok : cuda_failure(e); }

// The launches' status so far on this thread: reads and clears the runtime's last error, so it is
// reported once.
inline Status launch_status() { return cuda_status(cudaGetLastError()); }

}  // namespace samebits::kernels
