// What every kernel family's torch binding shares: the kernels' dtype for a tensor, checks of
// packed row offsets and strides, and a status turned into a torch error. Bindings only; kernels
// never include this (or torch).
#pragma once

#include <ATen/ATen.h>
#include <c10/cuda/CUDAGraphsC10Utils.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/common/cuda_status.h"
#include "kernels/common/status.h"

namespace samebits {

// float32, float16 or bfloat16; anything else fails naming `op` and the accepted dtypes.
inline kernels::DType kernel_dtype(const at::Tensor& x, const char* op) {
  switch (x.scalar_type()) {
    case at::kFloat: return kernels::DType::f32;
    case at::kHalf: return kernels::DType::f16;
    case at::kBFloat16: return kernels::DType::bf16;
    default:
      TORCH_CHECK(false, "samebits.", op, " takes float32, float16 or bfloat16, not ",
                  x.scalar_type());
  }
}

// Kernels leave a CUDA error in place (cudaPeekAtLastError) for this to report and clear.
// Packed rows: row r is [offsets[r], offsets[r + 1]) of `total` elements (`total_name` says which).
// Checks the offsets rise within [0, total] and returns the longest row, which must not exceed
// max_length when one is given (>= 0). Copies the offsets to the host (see offsets_checkable).
inline std::int64_t checked_longest_row(const at::Tensor& offsets, std::int64_t total,
                                        const char* total_name, std::int64_t max_length,
                                        const char* op) {
  const at::Tensor host = offsets.cpu();
  const auto* off = host.const_data_ptr<std::int64_t>();
  TORCH_CHECK(off[0] >= 0, "samebits.", op, ": offsets[0] must be >= 0, got ", off[0]);
  std::int64_t longest = 0;
  for (std::int64_t r = 0; r + 1 < host.numel(); ++r) {
    TORCH_CHECK(off[r] <= off[r + 1] && off[r + 1] <= total, "samebits.", op,
                ": offsets must rise to at most ", total_name, " = ", total, "; row ", r, " has [",
                off[r], ", ", off[r + 1], ")");
    longest = std::max(longest, off[r + 1] - off[r]);
  }
  TORCH_CHECK(max_length < 0 || longest <= max_length, "samebits.", op, ": a row of length ",
              longest, " exceeds max_length = ", max_length);
  return longest;
}

// Whether a call checks its offsets on the host (checked_longest_row): always, but for CUDA
// offsets with a max_length and unsafe = true, which skip the device-to-host copy (as
// torch.segment_reduce's unsafe): a row past max_length is then the caller's error, unchecked. A
// CUDA graph capture allows no such copy, so there the check is refused, naming the way out.
inline bool check_offsets(const at::Tensor& offsets, std::int64_t max_length, bool unsafe,
                          const char* op) {
  if (!offsets.is_cuda()) return true;
  if (max_length >= 0 && unsafe) return false;
  const c10::cuda::CUDAGuard guard(offsets.device());
  TORCH_CHECK(
      c10::cuda::currentStreamCaptureStatusMayInitCtx() == c10::cuda::CaptureStatus::None,
      "samebits.", op,
      ": checking the offsets copies them to the host, which a CUDA graph capture does not allow; "
      "pass max_length and unsafe=True to skip the check");
  return true;
}

// Whether dims [begin, end) of x walk as one index, and its stride if so (size-1 dims are free).
inline bool collapsible(const at::Tensor& x, std::int64_t begin, std::int64_t end,
                        std::int64_t* stride) {
  std::int64_t expected = -1;
  *stride = 0;
  for (std::int64_t d = end - 1; d >= begin; --d) {
    if (x.size(d) == 1) continue;
    if (expected >= 0 && x.stride(d) != expected) return false;
    if (expected < 0) *stride = x.stride(d);
    expected = x.stride(d) * x.size(d);
  }
  return true;
}

inline void check_kernel_status(kernels::Status s, const char* what) {
  TORCH_CHECK(s == kernels::Status::ok, "samebits ", what, " failed: ", kernels::to_string(s),
              s == kernels::Status::cuda_error
                  ? std::string(": ") + cudaGetErrorName(kernels::last_cuda_error()) + " (" +
                        cudaGetErrorString(kernels::last_cuda_error()) + ")"
                  : "");
}

}  // namespace samebits
