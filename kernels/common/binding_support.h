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
#include <cstdlib>
#include <optional>
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
// max_length when one is given (>= 0). Copies the offsets to the host (see longest_row_bound).
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

// The metadata debug mode: SAMEBITS_DEBUG_METADATA set to anything but "" or "0". Then CUDA
// offsets are copied to the host and checked eagerly (a sync), raising checked_longest_row's
// messages; without it, they never leave the device and the kernels guard every row.
inline bool debug_metadata() {
  const char* v = std::getenv("SAMEBITS_DEBUG_METADATA");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

// The bound on every packed row's length that sizes a launch (offsets: rows + 1 int64 entries,
// of `total` elements), with no device-to-host copy on the default path. Host offsets, or any in
// debug mode, are checked as checked_longest_row does (raising there); the bound is max_length
// when given (>= 0), else the longest row. CUDA offsets otherwise stay on the device: the bound
// is max_length when given, else min(total, limit), which no valid row exceeds. A row beyond the
// bound is the kernels' to guard (marked), never read past.
inline std::int64_t longest_row_bound(const at::Tensor& offsets, std::int64_t total,
                                      const char* total_name, std::int64_t max_length,
                                      std::int64_t limit, const char* op) {
  if (offsets.is_cuda() && !debug_metadata())
    return max_length >= 0 ? max_length : std::min(total, limit);
  if (offsets.is_cuda()) {
    const c10::cuda::CUDAGuard guard(offsets.device());
    TORCH_CHECK(
        c10::cuda::currentStreamCaptureStatusMayInitCtx() == c10::cuda::CaptureStatus::None,
        "samebits.", op,
        ": SAMEBITS_DEBUG_METADATA copies the offsets to the host, which a CUDA graph capture "
        "does not allow; unset it to capture");
  }
  const std::int64_t longest = checked_longest_row(offsets, total, total_name, max_length, op);
  return max_length >= 0 ? max_length : longest;
}

// The optional status word of a guarded op: an int32 tensor of one element on `like`'s device,
// into which the kernels OR the flaws of the rows they marked (kernels/common/row_guard.h; never
// cleared: zero it, call, read it when convenient). nullptr when not given.
inline std::int32_t* status_word(const std::optional<at::Tensor>& status, const at::Tensor& like,
                                 const char* op) {
  if (!status) return nullptr;
  TORCH_CHECK(status->scalar_type() == at::kInt && status->numel() == 1 &&
                  status->device() == like.device(),
              "samebits.", op, ": status must be an int32 tensor of one element on ", like.device(),
              ", got ", status->scalar_type(), " ", status->sizes(), " on ", status->device());
  return status->mutable_data_ptr<std::int32_t>();
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
