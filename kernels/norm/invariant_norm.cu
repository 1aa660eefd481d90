// The invariant RMSNorm on CUDA: one block of kLanes threads per row, lane t summing the squares
// of its chunks, a fixed tree in shared memory, then the scaled row (invariant_norm_order.h).
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
    for (int e = 0; e < n; ++e) out[e] = p[e];
  }
}

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

template <DType T>
Status launch(const NormProblem& p, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(p.rows));
  if (p.residual != nullptr) {
    norm_kernel<T, true><<<grid, order::kLanes, 0, stream>>>(p);
  } else {
    norm_kernel<T, false><<<grid, order::kLanes, 0, stream>>>(p);
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
