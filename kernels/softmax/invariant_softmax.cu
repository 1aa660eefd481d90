// The CUDA kernels of the invariant softmax, by length alone: a warp per row up to 1024, a block
// per row up to 32768, a cluster of 8 blocks per longer row, in invariant_softmax_order.h's order.
#include <algorithm>
#include <cstdint>

#include "kernels/common/cuda_status.h"
#include "kernels/common/occupancy.h"
#include "kernels/common/shared_memory.h"
#include "kernels/softmax/cluster_rows.cuh"
#include "kernels/softmax/invariant_softmax.h"
#include "kernels/softmax/invariant_softmax_order.h"
#include "kernels/softmax/short_rows.cuh"
#include "kernels/softmax/softmax_device.cuh"

namespace samebits::kernels {
namespace {

using namespace softmax_order;
using namespace softmax_device;

constexpr int kUnroll = 4;  // steps of a thread whose loads are issued before their adds

// The row's max (order-free), in every thread. `scratch` holds kWarps floats.
template <int kBlock>
__device__ float block_max(float m, float* scratch) {
#pragma unroll
  for (int h = kWarp / 2; h >= 1; h /= 2) m = max_device(m, __shfl_xor_sync(0xffffffffu, m, h));
  const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
  if (lane == 0) scratch[warp] = m;
  __syncthreads();
  m = -infinity();
#pragma unroll
  for (int w = 0; w < kBlock / kWarp; ++w) m = max_device(m, scratch[w]);
  __syncthreads();
  return m;
}

// Step 3's tree: q_T for logical thread T = threadIdx.x + kBlock g, warps of 32 consecutive T,
// then the kWarps warp sums. The result in every thread. Groups from kLive on hold only +0
// partials (a caller's rows too short to reach them): their warp sums are +0, stored as such.
template <int kBlock, int kGroups, int kLive = kGroups>
__device__ float block_tree(const float (&acc)[kGroups][4], float* scratch) {
  const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
#pragma unroll
  for (int g = 0; g < kGroups; ++g) {
    if (g >= kLive) {
      if (lane == 0) scratch[warp + g * (kBlock / kWarp)] = 0.0f;
      continue;
    }
    float q = (acc[g][0] + acc[g][1]) + (acc[g][2] + acc[g][3]);
#pragma unroll
    for (int h = kWarp / 2; h >= 1; h /= 2) q = q + __shfl_down_sync(0xffffffffu, q, h);
    if (lane == 0) scratch[warp + g * (kBlock / kWarp)] = q;
  }
  __syncthreads();
  if (warp == 0) {
    float w = scratch[lane];
#pragma unroll
    for (int h = kWarps / 2; h >= 1; h /= 2) w = w + __shfl_down_sync(0xffffffffu, w, h);
    if (lane == 0) scratch[kWarps] = w;
  }
  __syncthreads();
  const float s = scratch[kWarps];
  __syncthreads();
  return s;
}

// Logical thread T = threadIdx.x + kBlock g handles elements 4096 k + 4 T + j: step c of this
// thread covers 4 threadIdx.x + 4 kBlock c, which belongs to group c mod kGroups.
template <typename In, typename Out, bool kLog, int kBlock>
__global__ void __launch_bounds__(kBlock)
    softmax_rows(const In* __restrict__ x, std::int64_t rows, std::int64_t n,
                 std::int64_t row_stride, Out* __restrict__ out, std::int64_t out_row_stride) {
  constexpr int kGroups = kLogicalThreads / kBlock;
  static_assert(kUnroll % kGroups == 0, "an unrolled step covers whole groups");
  constexpr std::int64_t kStep = 4 * kBlock;
  __shared__ float scratch[kWarps + 1];
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const In* row = x + r * row_stride;
    Out* out_row = out + r * out_row_stride;
    const bool aligned = quad_aligned(row);
    const std::int64_t first = 4 * static_cast<std::int64_t>(threadIdx.x);
    float m = -infinity();
    for (std::int64_t i0 = first; i0 < n; i0 += kUnroll * kStep) {
      float v[kUnroll][4];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) load4(row, i0 + u * kStep, n, aligned, v[u]);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
        for (int j = 0; j < 4; ++j) m = max_combine(m, v[u][j]);
      }
    }
    m = block_max<kBlock>(m, scratch);
    float acc[kGroups][4] = {};
    for (std::int64_t i0 = first; i0 < n; i0 += kUnroll * kStep) {
      float v[kUnroll][4];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) load4(row, i0 + u * kStep, n, aligned, v[u]);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (i0 + u * kStep + j < n) {
            acc[u % kGroups][j] = acc[u % kGroups][j] + exp_invariant(v[u][j] - m);
          }
        }
      }
    }
    const float s = block_tree<kBlock, kGroups>(acc, scratch);
    const float log_s = kLog ? log_invariant(s) : 0.0f;
    const float inverse_s = __frcp_rn(s);  // 1 / s correctly rounded, as the twin's 1.0f / s
    const bool out_aligned = quad_aligned(out_row);
    for (std::int64_t i0 = first; i0 < n; i0 += kUnroll * kStep) {
      float v[kUnroll][4];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) load4(row, i0 + u * kStep, n, aligned, v[u]);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        float result[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          result[j] =
              kLog ? log_softmax_value(v[u][j], m, log_s) : softmax_value(v[u][j], m, inverse_s);
        }
        store4(out_row, i0 + u * kStep, n, out_aligned, result);
      }
    }
  }
}

// Rows of up to 4 kQuads kBlock elements held in registers, one block per row: thread tid's c-th
// quad is elements 4 tid + 4 kBlock c .. +3, logical thread T = tid + kBlock (c mod kGroups) of
// period c / kGroups, so each partial adds its elements in ascending order as in softmax_rows. The
// row is read once; softmax keeps e in place of x, log_softmax x - m. Elements past the row's end
// read as -inf and add exact +0s.
template <typename In, typename Out, bool kLog, int kBlock, int kQuads>
__global__ void __launch_bounds__(kBlock)
    softmax_held_rows(const In* __restrict__ x, std::int64_t rows, std::int64_t n,
                      std::int64_t row_stride, Out* __restrict__ out, std::int64_t out_row_stride) {
  constexpr int kGroups = kLogicalThreads / kBlock;
  constexpr int kLive = kQuads < kGroups ? kQuads : kGroups;  // groups that get elements
  __shared__ float scratch[kWarps + 1];
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const In* row = x + r * row_stride;
    const bool whole = quad_aligned(row) && n % 4 == 0;
    const std::int64_t first = 4 * static_cast<std::int64_t>(threadIdx.x);
    float v[kQuads][4];
#pragma unroll
    for (int c = 0; c < kQuads; ++c) load4w(row, first + 4 * kBlock * c, n, whole, v[c]);
    float m = -infinity();
#pragma unroll
    for (int c = 0; c < kQuads; ++c) {
#pragma unroll
      for (int j = 0; j < 4; ++j) m = max_device(m, v[c][j]);
    }
    m = block_max<kBlock>(m, scratch);
    float acc[kGroups][4] = {};
#pragma unroll
    for (int c = 0; c < kQuads; ++c) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const float d = v[c][j] - m;
        const float e = exp_nonpositive(d);
        acc[c % kGroups][j] = acc[c % kGroups][j] + e;
        v[c][j] = kLog ? d : e;
      }
    }
    const float s = block_tree<kBlock, kGroups, kLive>(acc, scratch);
    const float log_s = kLog ? log_invariant(s) : 0.0f;
    const float inverse_s = __frcp_rn(s);  // 1 / s correctly rounded, as the twin's 1.0f / s
    Out* out_row = out + r * out_row_stride;
    const bool out_whole = quad_aligned(out_row) && n % 4 == 0;
    const bool nan_row = is_nan(s);
#pragma unroll
    for (int c = 0; c < kQuads; ++c) {
      finish4<kLog>(out_row, first + 4 * kBlock * c, n, out_whole, nan_row, v[c], inverse_s, log_s);
    }
  }
}

// Rows of up to 128 kQuads elements, a warp each. Where every 16-bit row is whole, a grid of at
// most what the device holds at once, so that warps loop and load ahead; else a warp per row.
template <typename In, typename Out, bool kLog, int kQuads>
void launch_short(const In* x, const SoftmaxProblem& p, Out* out, cudaStream_t stream) {
  auto* kernel = softmax_short_rows<In, Out, kLog, kQuads>;
  // 16-bit rows only: float32 rows, twice the bytes, keep more loads in flight a warp per row.
  const bool all_whole =
      sizeof(In) == 2 && quad_aligned(x) && p.length % 4 == 0 && p.row_stride % 4 == 0;
  std::int64_t blocks = (p.rows + kShortRowsPerBlock - 1) / kShortRowsPerBlock;
  const int resident =
      resident_blocks(reinterpret_cast<const void*>(kernel), kWarp * kShortRowsPerBlock, 0);
  if (all_whole && resident > 0) blocks = std::min<std::int64_t>(blocks, resident);
  kernel<<<static_cast<unsigned>(std::min<std::int64_t>(blocks, 1 << 20)),
           kWarp * kShortRowsPerBlock, 0, stream>>>(x, p.rows, p.length, p.row_stride, out,
                                                    p.out_row_stride, all_whole);
}

template <typename In, typename Out, bool kLog>
Status launch(const SoftmaxProblem& p, cudaStream_t stream) {
  const unsigned grid = static_cast<unsigned>(std::min<std::int64_t>(p.rows, 1 << 20));
  const auto* x = static_cast<const In*>(p.x);
  auto* out = static_cast<Out*>(p.out);
  // Rows of up to 1024 go to a warp each, up to 32768 to a block each (held in registers), longer
  // ones to a cluster of blocks: the same partials and tree, the same bits, by the length alone.
  if (p.length <= kShortRowMax) {
    if (p.length <= 128) {
      launch_short<In, Out, kLog, 1>(x, p, out, stream);
    } else if (p.length <= 256) {
      launch_short<In, Out, kLog, 2>(x, p, out, stream);
    } else if (p.length <= 512) {
      launch_short<In, Out, kLog, 4>(x, p, out, stream);
    } else {
      launch_short<In, Out, kLog, 8>(x, p, out, stream);
    }
  } else if (p.length <= 2048) {
    softmax_held_rows<In, Out, kLog, 128, 4>
        <<<grid, 128, 0, stream>>>(x, p.rows, p.length, p.row_stride, out, p.out_row_stride);
  } else if (p.length <= 4096) {
    softmax_held_rows<In, Out, kLog, 256, 4>
        <<<grid, 256, 0, stream>>>(x, p.rows, p.length, p.row_stride, out, p.out_row_stride);
  } else if (p.length <= 8192) {
    softmax_held_rows<In, Out, kLog, 512, 4>
        <<<grid, 512, 0, stream>>>(x, p.rows, p.length, p.row_stride, out, p.out_row_stride);
  } else if (p.length <= 32768) {
    softmax_held_rows<In, Out, kLog, 1024, 8>
        <<<grid, 1024, 0, stream>>>(x, p.rows, p.length, p.row_stride, out, p.out_row_stride);
  } else {
    // A cluster of 8 blocks per row where its share fits in shared memory (by the length and the
    // device alone), else one block of 1024 threads reading the row three times. The cluster's
    // blocks are 512 threads while every row's cluster fits on the GPU at once, else 256 where
    // those hold more rows at once (the same partials, tree and bits: cluster_rows.cuh).
    auto* wide = softmax_cluster_rows<In, Out, kLog, kSlice>;
    auto* narrow = softmax_cluster_rows<In, Out, kLog, kSlice / 2>;
    const std::size_t bytes = cluster_shared_bytes(p.length, sizeof(In));
    Status fits = allow_dynamic_shared_memory(wide, bytes);
    if (fits == Status::ok) fits = allow_dynamic_shared_memory(narrow, bytes);
    if (fits == Status::ok) {
      const auto clusters = static_cast<unsigned>(std::min<std::int64_t>(p.rows, 1 << 16));
      const std::int64_t wide_rows =
          resident_blocks(reinterpret_cast<const void*>(wide), kSlice, bytes) / kClusterBlocks;
      const std::int64_t narrow_rows =
          resident_blocks(reinterpret_cast<const void*>(narrow), kSlice / 2, bytes) /
          kClusterBlocks;
      if (p.rows > wide_rows && narrow_rows > wide_rows) {
        narrow<<<clusters * kClusterBlocks, kSlice / 2, bytes, stream>>>(
            x, p.rows, p.length, p.row_stride, out, p.out_row_stride);
      } else {
        wide<<<clusters * kClusterBlocks, kSlice, bytes, stream>>>(
            x, p.rows, p.length, p.row_stride, out, p.out_row_stride);
      }
    } else if (fits == Status::invalid_argument) {
      softmax_rows<In, Out, kLog, 1024>
          <<<grid, 1024, 0, stream>>>(x, p.rows, p.length, p.row_stride, out, p.out_row_stride);
    } else {
      return fits;
    }
  }
  return launch_status();
}

template <typename In, typename Out>
Status launch_for_log(const SoftmaxProblem& p, cudaStream_t stream) {
  return p.log ? launch<In, Out, true>(p, stream) : launch<In, Out, false>(p, stream);
}

// The output is the input's dtype or float32.
template <typename In>
Status launch_for_out(const SoftmaxProblem& p, cudaStream_t stream) {
  if (p.out_dtype == DType::f32) return launch_for_log<In, float>(p, stream);
  return launch_for_log<In, In>(p, stream);
}

}  // namespace

Status invariant_softmax_cuda(const SoftmaxProblem& p, cudaStream_t stream) {
  if (!p.x || !p.out || p.rows < 0 || p.length < 1) return Status::invalid_argument;
  if (p.rows == 0) return Status::ok;
  if (p.out_dtype != DType::f32 && p.out_dtype != p.dtype) return Status::unsupported_dtype;
  switch (p.dtype) {
    case DType::f32: return launch_for_out<float>(p, stream);
    case DType::bf16: return launch_for_out<Bf16>(p, stream);
    case DType::f16: return launch_for_out<F16>(p, stream);
  }
  return Status::unsupported_dtype;
}

}  // namespace samebits::kernels
