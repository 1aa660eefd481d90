// The float32 linear on CUDA cores: 64 x 64 output tiles, K staged 16 at a time through shared
// memory, each output one fmaf chain over k ascending from +0 (never TF32): the CPU twin's bits.
#include <cstdint>

#include "kernels/common/cuda_status.h"
#include "kernels/linear/invariant_linear_order.h"
#include "kernels/linear/linear_kernels.h"

namespace samebits::kernels {
namespace {

constexpr linear_order::LinearTile kTile = linear_order::linear_tile_for(0, 0, false);
constexpr int kRows = kTile.rows, kCols = kTile.cols, kDepth = kTile.depth;
constexpr int kThreads = 256;  // thread (ty, tx) = (t / 16, t % 16): rows ty + 16 i, cols tx + 16 j
constexpr int kPer = 4;        // outputs per thread along each of M and N
static_assert(kRows == 16 * kPer && kCols == 16 * kPer, "16 x 16 threads of 4 x 4 outputs");

// Stages k0 .. k0 + kDepth - 1 of `count` lines from line0 on, transposed: to[kk][line]. Plain
// loads: any row stride and any 4-byte alignment. Entries past K or the last line stay unread.
__device__ __forceinline__ void stage(float (*to)[kRows + 4], const float* from, std::int64_t ld,
                                      std::int64_t line0, std::int64_t lines, std::int64_t k,
                                      std::int64_t k0) {
  for (int i = threadIdx.x; i < kRows * kDepth; i += kThreads) {
    const int line = i / kDepth, kk = i % kDepth;
    float v = 0.0f;
    if (line0 + line < lines && k0 + kk < k) v = from[(line0 + line) * ld + k0 + kk];
    to[kk][line] = v;
  }
}

__global__ void __launch_bounds__(kThreads)
    linear_fp32_kernel(const float* x, std::int64_t ldx, const float* w, std::int64_t ldw,
                       const float* bias, float* out, std::int64_t rows, std::int64_t n,
                       std::int64_t k) {
  __shared__ float xs[kDepth][kRows + 4];
  __shared__ float ws[kDepth][kCols + 4];
  const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.x) * kRows;
  const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.y) * kCols;
  const int ty = threadIdx.x / 16, tx = threadIdx.x % 16;
  float acc[kPer][kPer];
#pragma unroll
  for (int i = 0; i < kPer; ++i)
#pragma unroll
    for (int j = 0; j < kPer; ++j) acc[i][j] = 0.0f;

  for (std::int64_t k0 = 0; k0 < k; k0 += kDepth) {
    stage(xs, x, ldx, row0, rows, k, k0);
    stage(ws, w, ldw, col0, n, k, k0);
    __syncthreads();
    // Exactly the k < K terms: a padding fma(0, 0, -0) would turn a -0 accumulator into +0.
    const int depth = k - k0 < kDepth ? static_cast<int>(k - k0) : kDepth;
    for (int kk = 0; kk < depth; ++kk) {
      float a[kPer], b[kPer];
#pragma unroll
      for (int i = 0; i < kPer; ++i) a[i] = xs[kk][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < kPer; ++j) b[j] = ws[kk][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < kPer; ++i)
#pragma unroll
        for (int j = 0; j < kPer; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < kPer; ++i) {
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      const std::int64_t row = row0 + ty + 16 * i, col = col0 + tx + 16 * j;
      if (row >= rows || col >= n) continue;
      out[row * n + col] = linear_order::add_bias(acc[i][j], bias ? bias + col : nullptr);
    }
  }
}

}  // namespace

Status launch_linear_fp32(const LinearProblem& p, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((p.rows + kRows - 1) / kRows),
                  static_cast<unsigned>((p.n + kCols - 1) / kCols));
  if (p.rows / kRows >= (1LL << 31) - 1) return Status::invalid_argument;
  linear_fp32_kernel<<<grid, kThreads, 0, stream>>>(static_cast<const float*>(p.x), p.x_row_stride,
                                                    static_cast<const float*>(p.w), p.w_row_stride,
                                                    static_cast<const float*>(p.bias),
                                                    static_cast<float*>(p.out), p.rows, p.n, p.k);
  return launch_status();
}

}  // namespace samebits::kernels
