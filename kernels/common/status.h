// What a samebits kernel entry point returns: ok, or why it did not run. Kernels never throw and
// never include torch; the bindings turn a status into an error message for their callers.
#pragma once

namespace samebits::kernels {

enum class Status {
  ok,
  invalid_argument,   // a size, stride or pointer the kernel cannot take
  unsupported_dtype,  // an element type the kernel was not built for
  workspace_too_small,
  cuda_error,  // a launch or CUDA call failed; last_cuda_error() (cuda_status.h) says which
};

inline const char* to_string(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::invalid_argument: return "invalid argument";
    case Status::unsupported_dtype: return "unsupported dtype";
    case Status::workspace_too_small: return "workspace too small";
    case Status::cuda_error: return "CUDA error";
  }
  return "?";
}

// Element types the kernels read; they always accumulate in float32.
enum class DType { f32, f16, bf16 };

}  // namespace samebits::kernels
