// The bf16 / f16 linear on tensor cores: 128 x 128 output tiles, K staged 32 at a time through
// double-buffered shared memory (cp.async), mma.sync m16n8k16 steps in ascending k from +0.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/common/cuda_status.h"
#include "kernels/common/mma_instructions.cuh"
#include "kernels/linear/invariant_linear_order.h"
#include "kernels/linear/linear_elements.cuh"
#include "kernels/linear/linear_kernels.h"

namespace samebits::kernels {
namespace {

constexpr linear_order::LinearTile kTile = linear_order::linear_tile_for(0, 0, true);
constexpr int kRows = kTile.rows, kCols = kTile.cols, kDepth = kTile.depth;
constexpr int kThreads = 256;        // 8 warps: 2 along M (64 rows each) x 4 along N (32 columns)
constexpr int kPitch = kDepth + 8;   // halves per shared row (80 bytes: the 8 rows one fragment
                                     // load touches fall into different banks)
constexpr int kChunks = kDepth / 8;  // 16-byte copies per staged row
constexpr int kStageHalves = (kRows + kCols) * kPitch;
static_assert(kDepth % linear_order::kStep == 0, "a stage holds whole MMA steps");

// One 16-byte copy of which the first `bytes` come from src and the rest are zeros.
__device__ __forceinline__ void copy_bytes(std::uint32_t dst, const void* src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes));
}

// Stages k0 .. k0 + kDepth - 1 of the block's x rows and w rows (zeros past K and past the last
// row or column).
__device__ __forceinline__ void stage(std::uint16_t* buffer, const std::uint16_t* x,
                                      std::int64_t ldx, const std::uint16_t* w, std::int64_t ldw,
                                      std::int64_t row0, std::int64_t rows, std::int64_t col0,
                                      std::int64_t n, std::int64_t k, std::int64_t k0) {
  const auto base = static_cast<std::uint32_t>(__cvta_generic_to_shared(buffer));
  for (int i = threadIdx.x; i < (kRows + kCols) * kChunks; i += kThreads) {
    const int r = i / kChunks, chunk = i % kChunks;
    const std::int64_t kk = k0 + 8 * chunk;
    const bool is_x = r < kRows;
    const std::int64_t line = is_x ? row0 + r : col0 + (r - kRows);
    const bool present = line < (is_x ? rows : n) && kk < k;
    const std::uint16_t* from = is_x ? x : w;
    int bytes = 0;
    if (present) {
      from += line * (is_x ? ldx : ldw) + kk;
      bytes = static_cast<int>(k - kk < 8 ? 2 * (k - kk) : 16);
    }
    copy_bytes(base + 2u * static_cast<std::uint32_t>(r * kPitch + 8 * chunk), from, bytes);
  }
}

using linear_elements::to_dtype;
using linear_elements::to_float;

template <DType T>
__global__ void __launch_bounds__(kThreads)
    linear_mma_kernel(const std::uint16_t* x, std::int64_t ldx, const std::uint16_t* w,
                      std::int64_t ldw, const std::uint16_t* bias, std::uint16_t* out,
                      std::int64_t rows, std::int64_t n, std::int64_t k) {
  __shared__ alignas(16) std::uint16_t shared[2][kStageHalves];
  const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.x) * kRows;
  const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.y) * kCols;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, c = lane & 3;
  const int warp_row = (warp >> 2) * 64, warp_col = (warp & 3) * 32;

  float acc[4][4][4];
#pragma unroll
  for (int m = 0; m < 4; ++m)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[m][j][e] = 0.0f;

  const std::int64_t stages = (k + kDepth - 1) / kDepth;
  if (stages > 0) stage(shared[0], x, ldx, w, ldw, row0, rows, col0, n, k, 0);
  tensor_core::commit_copies();
  for (std::int64_t s = 0; s < stages; ++s) {
    if (s + 1 < stages) {  // the next stage streams in while this one is multiplied
      stage(shared[(s + 1) & 1], x, ldx, w, ldw, row0, rows, col0, n, k, (s + 1) * kDepth);
    }
    tensor_core::commit_copies();
    tensor_core::wait_copies<1>();
    __syncthreads();
    const std::uint16_t* a_rows = shared[s & 1] + (warp_row + g) * kPitch + 2 * c;
    const std::uint16_t* b_rows = shared[s & 1] + (kRows + warp_col + g) * kPitch + 2 * c;
#pragma unroll
    for (int step = 0; step < kDepth / linear_order::kStep; ++step) {
      // Steps 16 s' .. 16 s' + 15 with s' past the last (k >= K) are not steps: skip them.
      if (s * kDepth + step * linear_order::kStep >= k) break;
      const int kk = step * linear_order::kStep;
      std::uint32_t a[4][4];
#pragma unroll
      for (int m = 0; m < 4; ++m) {
        const std::uint16_t* r = a_rows + m * 16 * kPitch + kk;
        a[m][0] = *reinterpret_cast<const std::uint32_t*>(r);
        a[m][1] = *reinterpret_cast<const std::uint32_t*>(r + 8 * kPitch);
        a[m][2] = *reinterpret_cast<const std::uint32_t*>(r + 8);
        a[m][3] = *reinterpret_cast<const std::uint32_t*>(r + 8 * kPitch + 8);
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const std::uint16_t* r = b_rows + j * 8 * kPitch + kk;
        const auto b0 = *reinterpret_cast<const std::uint32_t*>(r);
        const auto b1 = *reinterpret_cast<const std::uint32_t*>(r + 8);
#pragma unroll
        for (int m = 0; m < 4; ++m) tensor_core::mma<T>(acc[m][j], a[m], b0, b1);
      }
    }
    __syncthreads();  // the buffer read here is the next-but-one stage's destination
  }

  // Lane (g, c) holds rows g and g + 8 of each 16-row tile, columns 2c and 2c + 1 of each 8.
#pragma unroll
  for (int m = 0; m < 4; ++m) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const std::int64_t row = row0 + warp_row + m * 16 + g + (e >> 1) * 8;
        const std::int64_t col = col0 + warp_col + j * 8 + 2 * c + (e & 1);
        if (row >= rows || col >= n) continue;
        const float b = bias ? to_float<T>(bias[col]) : 0.0f;
        out[row * n + col] = to_dtype<T>(linear_order::add_bias(acc[m][j][e], bias ? &b : nullptr));
      }
    }
  }
}

}  // namespace

Status launch_linear_tensor_cores(const LinearProblem& p, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((p.rows + kRows - 1) / kRows),
                  static_cast<unsigned>((p.n + kCols - 1) / kCols));
  if (p.rows / kRows >= (1LL << 31) - 1) return Status::invalid_argument;
  const auto* x = static_cast<const std::uint16_t*>(p.x);
  const auto* w = static_cast<const std::uint16_t*>(p.w);
  const auto* bias = static_cast<const std::uint16_t*>(p.bias);
  auto* out = static_cast<std::uint16_t*>(p.out);
  if (p.dtype == DType::bf16) {
    linear_mma_kernel<DType::bf16><<<grid, kThreads, 0, stream>>>(
        x, p.x_row_stride, w, p.w_row_stride, bias, out, p.rows, p.n, p.k);
  } else if (p.dtype == DType::f16) {
    linear_mma_kernel<DType::f16><<<grid, kThreads, 0, stream>>>(
        x, p.x_row_stride, w, p.w_row_stride, bias, out, p.rows, p.n, p.k);
  } else {
    return Status::unsupported_dtype;
  }
  return launch_status();
}

}  // namespace samebits::kernels
