// The invariant RMSNorm on CUDA: a row of up to 1024 chunks held in registers by 32 to 256 threads,
// each standing for several logical lanes; a longer row streamed by a block of kLanes threads.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/common/cuda_status.h"
#include "kernels/norm/invariant_norm.h"
#include "kernels/norm/invariant_norm_order.h"

namespace samebits::kernels {
namespace {

namespace order = norm_order;

// Reads the chunk at `start` (n <= kChunk valid elements) of a row: one or two 16-byte loads
// where the whole chunk is there and aligned, else element by element. The values, and so the
// sums, are the same either way.
template <typename S>
__device__ void load_chunk(const S* row, std::int64_t start, int n, S (&out)[order::kChunk]) {
  const S* p = row + start;
  constexpr int kPerVector = 16 / sizeof(S);
  if (n == order::kChunk && (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0) {
#pragma unroll
    for (int v = 0; v < order::kChunk / kPerVector; ++v) {
      const uint4 word = *reinterpret_cast<const uint4*>(p + v * kPerVector);
      memcpy(&out[v * kPerVector], &word, 16);
    }
  } else {
#pragma unroll
    for (int e = 0; e < order::kChunk; ++e) {
      if (e < n) out[e] = p[e];
    }
  }
}

// Writes the chunk at `start` (n <= kChunk valid elements), as load_chunk reads it.
template <typename S>
__device__ void store_chunk(S* row, std::int64_t start, int n, const S (&in)[order::kChunk]) {
  S* p = row + start;
  constexpr int kPerVector = 16 / sizeof(S);
  if (n == order::kChunk && (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0) {
#pragma unroll
    for (int v = 0; v < order::kChunk / kPerVector; ++v) {
      uint4 word;
      memcpy(&word, &in[v * kPerVector], 16);
      *reinterpret_cast<uint4*>(p + v * kPerVector) = word;
    }
  } else {
#pragma unroll
    for (int e = 0; e < order::kChunk; ++e) {
      if (e < n) p[e] = in[e];
    }
  }
}

// Rows held in registers: kP physical threads per row (kNormBlock / kP rows per block), thread t
// standing for the logical lanes t + kP j (j < kLanes / kP). Its m-th chunk is chunk t + kP m of
// the row, which is logical lane t + kP (m mod kLanes / kP)'s chunk number m / (kLanes / kP): each
// logical lane still adds its chunks in ascending order. The tree's steps s >= kP add two
// accumulators of one thread, steps kP > s >= 32 read shared memory (every warp of the row
// computes lane l's value after step 32 from the kP partials, the same adds in the same
// grouping), steps s < 32 an xor butterfly (lane l < s adds lane l + s as the tree does; the
// other lanes add the same two values the other way round), so every thread gets p[0].
inline constexpr int kNormBlock = 256;

// The value of logical lane t after the tree's step s (s >= 32), from the kP partials left after
// the steps s >= kP.
template <int kS, int kP>
__device__ __forceinline__ float tree_value(const float* partial, int t) {
  if constexpr (kS >= kP) {
    return partial[t];
  } else {
    return __fadd_rn(tree_value<2 * kS, kP>(partial, t), tree_value<2 * kS, kP>(partial, t + kS));
  }
}

template <DType T, bool kAdd, int kP, int kM>
__global__ void __launch_bounds__(kNormBlock) norm_held(NormProblem p) {
  using E = order::Elem<T>;
  using S = typename E::type;
  constexpr int kL = order::kLanes / kP;  // logical lanes per thread
  constexpr int kRowsPerBlock = kNormBlock / kP;
  constexpr int kC = order::kChunk;
  static_assert(kP >= 32 && order::kLanes % kP == 0, "whole logical lanes per thread");
  __shared__ float partial[kNormBlock];
  const int t = threadIdx.x % kP;
  const std::int64_t row_index = std::int64_t{blockIdx.x} * kRowsPerBlock + threadIdx.x / kP;
  const bool live = row_index < p.rows;
  const std::int64_t row = live ? row_index : 0;
  const S* x = static_cast<const S*>(p.x) + row * p.x_stride;
  const S* r = kAdd ? static_cast<const S*>(p.residual) + row * p.residual_stride : nullptr;
  S* h = kAdd ? static_cast<S*>(p.h) + row * p.d : nullptr;
  const S* w = static_cast<const S*>(p.w);
  S* y = static_cast<S*>(p.y) + row * p.d;

  // Every load of the row (x, r, w) issued before the first use.
  S xv[kM][kC], rv[kAdd ? kM : 1][kC], wv[kM][kC];
  int n[kM];
#pragma unroll
  for (int m = 0; m < kM; ++m) {
    const std::int64_t start = (t + std::int64_t{kP} * m) * kC;
    n[m] = live && start < p.d ? static_cast<int>(p.d - start < kC ? p.d - start : kC) : 0;
    if (n[m] > 0) {
      load_chunk(x, start, n[m], xv[m]);
      if constexpr (kAdd) load_chunk(r, start, n[m], rv[m]);
      load_chunk(w, start, n[m], wv[m]);
    }
  }
  float v[kM][kC];
  float acc[kL];
#pragma unroll
  for (int j = 0; j < kL; ++j) acc[j] = 0.0f;
#pragma unroll
  for (int m = 0; m < kM; ++m) {
    if (n[m] == 0) continue;
    const std::int64_t start = (t + std::int64_t{kP} * m) * kC;
    if constexpr (kAdd) {
      S hv[kC];
#pragma unroll
      for (int e = 0; e < kC; ++e) {
        hv[e] = E::narrow(__fadd_rn(E::widen(xv[m][e]), E::widen(rv[m][e])));
        v[m][e] = E::widen(hv[e]);
      }
      store_chunk(h, start, n[m], hv);
    } else {
#pragma unroll
      for (int e = 0; e < kC; ++e) v[m][e] = E::widen(xv[m][e]);
    }
#pragma unroll
    for (int e = 0; e < kC; ++e) {
      if (e < n[m]) acc[m % kL] = order::square_add(acc[m % kL], v[m][e]);
    }
  }
#pragma unroll
  for (int s = kL / 2; s >= 1; s /= 2) {
#pragma unroll
    for (int j = 0; j < s; ++j) acc[j] = __fadd_rn(acc[j], acc[j + s]);
  }
  float sum;
  if constexpr (kP > 32) {
    partial[threadIdx.x] = acc[0];
    __syncthreads();
    sum = tree_value<32, kP>(partial + (threadIdx.x / kP) * kP, t % 32);
  } else {
    sum = acc[0];
  }
#pragma unroll
  for (int s = 16; s >= 1; s /= 2) sum = __fadd_rn(sum, __shfl_xor_sync(0xffffffffu, sum, s));
  const float rstd = order::finish_rstd(sum, p.d, p.eps);
#pragma unroll
  for (int m = 0; m < kM; ++m) {
    if (n[m] == 0) continue;
    S out[kC];
#pragma unroll
    for (int e = 0; e < kC; ++e)
      out[e] = E::narrow(order::scale(v[m][e], rstd, E::widen(wv[m][e])));
    store_chunk(y, (t + std::int64_t{kP} * m) * kC, n[m], out);
  }
}

// Longer rows: one block of kLanes threads per row, reading the row twice.
template <DType T, bool kAdd>
__global__ void __launch_bounds__(order::kLanes) norm_kernel(NormProblem p) {
  using E = order::Elem<T>;
  using S = typename E::type;
  __shared__ float partial[order::kLanes];
  const std::int64_t row = blockIdx.x;
  const int lane = threadIdx.x;
  const S* x = static_cast<const S*>(p.x) + row * p.x_stride;
  const S* r = kAdd ? static_cast<const S*>(p.residual) + row * p.residual_stride : nullptr;
  S* h = kAdd ? static_cast<S*>(p.h) + row * p.d : nullptr;
  const S* w = static_cast<const S*>(p.w);
  S* y = static_cast<S*>(p.y) + row * p.d;

  float acc = 0.0f;
  for (std::int64_t c = 0;; ++c) {
    const std::int64_t start = order::chunk_start(lane, c);
    if (start >= p.d) break;
    const int n = static_cast<int>(p.d - start < order::kChunk ? p.d - start : order::kChunk);
    S xv[order::kChunk];
    load_chunk(x, start, n, xv);
    if constexpr (kAdd) {
      S rv[order::kChunk];
      load_chunk(r, start, n, rv);
      for (int e = 0; e < n; ++e) {
        xv[e] = E::narrow(__fadd_rn(E::widen(xv[e]), E::widen(rv[e])));
        h[start + e] = xv[e];
      }
    }
    for (int e = 0; e < n; ++e) acc = order::square_add(acc, E::widen(xv[e]));
  }
  partial[lane] = acc;
  __syncthreads();
#pragma unroll
  for (int s = order::kLanes / 2; s >= 1; s /= 2) {
    if (lane < s) partial[lane] = __fadd_rn(partial[lane], partial[lane + s]);
    __syncthreads();
  }
  const float rstd = order::finish_rstd(partial[0], p.d, p.eps);
  for (std::int64_t c = 0;; ++c) {
    const std::int64_t start = order::chunk_start(lane, c);
    if (start >= p.d) break;
    const int n = static_cast<int>(p.d - start < order::kChunk ? p.d - start : order::kChunk);
    S v[order::kChunk], wv[order::kChunk];
    // add_rms_norm reads back the h this thread wrote above (its own chunks, program order).
    load_chunk(kAdd ? static_cast<const S*>(h) : x, start, n, v);
    load_chunk(w, start, n, wv);
    for (int e = 0; e < n; ++e)
      y[start + e] = E::narrow(order::scale(E::widen(v[e]), rstd, E::widen(wv[e])));
  }
}

template <DType T, int kP, int kM>
void launch_held(const NormProblem& p, cudaStream_t stream) {
  constexpr int kRowsPerBlock = kNormBlock / kP;
  const dim3 grid(static_cast<unsigned>((p.rows + kRowsPerBlock - 1) / kRowsPerBlock));
  if (p.residual != nullptr) {
    norm_held<T, true, kP, kM><<<grid, kNormBlock, 0, stream>>>(p);
  } else {
    norm_held<T, false, kP, kM><<<grid, kNormBlock, 0, stream>>>(p);
  }
}

// The path by D alone (the bits are the same on every path): a warp per row up to 128 chunks
// (D <= 1024), 64, 128 or 256 threads per row up to 256, 512 and 1024 chunks (D <= 8192), four
// chunks a thread; beyond, the streaming kernel.
template <DType T>
Status launch(const NormProblem& p, cudaStream_t stream) {
  const std::int64_t chunks = (p.d + order::kChunk - 1) / order::kChunk;
  if (chunks <= 128) {
    launch_held<T, 32, 4>(p, stream);
  } else if (chunks <= 256) {
    launch_held<T, 64, 4>(p, stream);
  } else if (chunks <= 512) {
    launch_held<T, 128, 4>(p, stream);
  } else if (chunks <= 1024) {
    launch_held<T, 256, 4>(p, stream);
  } else {
    const dim3 grid(static_cast<unsigned>(p.rows));
    if (p.residual != nullptr) {
      norm_kernel<T, true><<<grid, order::kLanes, 0, stream>>>(p);
    } else {
      norm_kernel<T, false><<<grid, order::kLanes, 0, stream>>>(p);
    }
  }
  return launch_status();
}

}  // namespace

Status invariant_norm_cuda(const NormProblem& p, cudaStream_t stream) {
  if (p.rows < 0 || p.d < 1 || p.rows > 0x7fffffff) return Status::invalid_argument;
  if (p.rows == 0) return Status::ok;
  if (p.x == nullptr || p.w == nullptr || p.y == nullptr) return Status::invalid_argument;
  if (p.residual != nullptr && p.h == nullptr) return Status::invalid_argument;
  switch (p.dtype) {
    case DType::f32: return launch<DType::f32>(p, stream);
    case DType::bf16: return launch<DType::bf16>(p, stream);
    case DType::f16: return launch<DType::f16>(p, stream);
  }
  return Status::unsupported_dtype;
}

}  // namespace samebits::kernels
