// Tensor maps for the bulk tensor copy engine (TMA): a 2-D row-major 16-bit matrix cut into boxes
// of 64 elements (128 bytes, the 128-byte swizzle wgmma reads) by `box_rows` rows.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <mutex>

#include "kernels/common/status.h"

namespace samebits::kernels {

// The driver's encoder, found once through the runtime (no link to libcuda); nullptr when the
// driver has none.
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault,
                                         &found) == cudaSuccess &&
        found == cudaDriverEntryPointSuccess)
      encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
    else
      (void)cudaGetLastError();  // leave no sticky error behind for the next launch check
  });
  return encode;
}

// `rows` x `cols` 16-bit elements (bf16 or f16), row r at base + r * row_stride elements; boxes of
// 64 columns by `box_rows` rows, 128-byte swizzled, zeros outside the matrix. False when the
// driver refuses (the caller falls back): base 16-byte aligned and row_stride * 2 a multiple of
// 16 below 2^40 are the engine's rules.
inline bool encode_tensor_map(CUtensorMap* map, DType dtype, const void* base, std::int64_t rows,
                              std::int64_t cols, std::int64_t row_stride, unsigned box_rows) {
  const PFN_cuTensorMapEncodeTiled_v12000 encode = tensor_map_encoder();
  if (encode == nullptr || rows <= 0 || cols <= 0 || rows > (1LL << 32) || cols > (1LL << 32))
    return false;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(row_stride) * 2};
  const cuuint32_t box[2] = {64, box_rows};
  const cuuint32_t steps[2] = {1, 1};
  const CUtensorMapDataType type = dtype == DType::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                        : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  return encode(map, type, 2, const_cast<void*>(base), dims, strides, box, steps,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) ==
         CUDA_SUCCESS;
}

}  // namespace samebits::kernels
