// long_column_kernel: column sums longer than one step (n > 1024, short_columns.cu below), 128
// bytes of a row at a time; each block sums the lanes of one residue mod 8 of a chunk, a second
// launch the 8.
#include "kernels/reduce/reduce_device.cuh"

namespace samebits::kernels::reduce_device {
namespace {

// The order's tree pairs lane t with t + s, so lanes of one residue mod 8 meet only each other at
// levels 128..8, and levels 4, 2, 1 combine the residues' 8 sums (lanes 0..7). A block holds the
// lanes t = b + 8 i (i < kSlots) of one chunk and one residue b, for kWidth groups of
// kColumns<T> adjacent reductions: thread (i, g) is lane t of group g, its rows 1024 k + 4 t + j
// read as 16-byte words (a warp's load reads whole 128-byte lines of a row). The tree's levels
// down to 8 run in shared memory; the block writes lane b's value per reduction as a remnant, and
// finish_kernel applies levels 4, 2, 1 to a chunk's 8 remnants. More blocks than one per chunk
// keep the GPU busy when the columns are few and the rows many.
constexpr int kResidues = 8;
constexpr int kSlots = kLanes / kResidues;  // 32 lanes of a residue
constexpr int kLongThreads = 256;
constexpr int kFinishThreads = 256;
constexpr int kWidth = kLongThreads / kSlots;  // groups per block: 128 bytes of a row

// Lane t of a group's chunk: rows p = 1024 k + 4 t + j < len (k < 4) added in order k, then j.
// Vector: the 16 words are read before the adds (a row past len reads as +0.0, which leaves the
// lane's bits alone); otherwise scalar reads of the `count` columns present.
template <typename T>
__device__ __forceinline__ void lane_columns(const T* base, std::int64_t stride, std::int64_t len,
                                             int count, bool vector, int t,
                                             float (&acc)[kColumns<T>]) {
  constexpr int C = kColumns<T>;
  if (vector) {
    ColumnWord<T> rows[kSteps][kVector];
#pragma unroll
    for (int k = 0; k < kSteps; ++k) {
#pragma unroll
      for (int j = 0; j < kVector; ++j) {
        const std::int64_t p = std::int64_t{k} * kStepSpan + kVector * t + j;
        rows[k][j] =
            p < len ? *reinterpret_cast<const ColumnWord<T>*>(base + p * stride) : ColumnWord<T>{};
      }
    }
#pragma unroll
    for (int k = 0; k < kSteps; ++k) {
#pragma unroll
      for (int j = 0; j < kVector; ++j) {
        float v[C];
        widen_columns<T>(rows[k][j], v);
#pragma unroll
        for (int q = 0; q < C; ++q) acc[q] = __fadd_rn(acc[q], v[q]);
      }
    }
    return;
  }
#pragma unroll
  for (int k = 0; k < kSteps; ++k) {
#pragma unroll
    for (int j = 0; j < kVector; ++j) {
      const std::int64_t p = std::int64_t{k} * kStepSpan + kVector * t + j;
      if (p >= len) continue;
#pragma unroll
      for (int q = 0; q < C; ++q) {
        if (q < count) acc[q] = __fadd_rn(acc[q], to_float(base[p * stride + q]));
      }
    }
  }
}

// Block (o, w, c, b), b fastest: outer index o, groups w W .. w W + W - 1 of it (W = kWidth),
// chunk c, residue b. The remnant of reduction r, chunk c, residue b goes to
// remnants[(r * chunks + c) * 8 + b].
template <typename T>
__global__ void __launch_bounds__(kLongThreads)
    long_column_kernel(const T* x, Source src, std::int64_t groups_per_outer,
                       std::int64_t widths_per_outer, std::int64_t chunks, float* remnants) {
  constexpr int C = kColumns<T>, W = kWidth;
  __shared__ float tree[C][kSlots][W];  // q-major: a warp's 32 threads hit 32 banks
  const int g = threadIdx.x % W, i = threadIdx.x / W;
  const std::int64_t block = blockIdx.x;
  const int b = static_cast<int>(block % kResidues);
  const Quotient wc = divide(block / kResidues, chunks);  // (o * widths + w, c)
  const Quotient ow = divide(wc.q, widths_per_outer);
  const std::int64_t group = ow.r * W + g;  // within outer index ow.q
  const std::int64_t i0 = group * C;
  const int count =
      group < groups_per_outer ? static_cast<int>(src.inner - i0 < C ? src.inner - i0 : C) : 0;
  const std::int64_t begin = wc.r * kChunk;
  const std::int64_t len = src.n - begin < kChunk ? src.n - begin : kChunk;
  float acc[C] = {};  // lane sums start at +0.0
  if (count > 0) {
    const T* base = x + ow.q * src.stride_outer + i0 + begin * src.stride_length;
    const bool vector = count == C && reinterpret_cast<std::uintptr_t>(base) % 16 == 0 &&
                        src.stride_length * static_cast<std::int64_t>(sizeof(T)) % 16 == 0;
    lane_columns<T>(base, src.stride_length, len, count, vector, b + kResidues * i, acc);
  }
#pragma unroll
  for (int q = 0; q < C; ++q) tree[q][i][g] = acc[q];
    // Level s (128 .. 8): lane t = b + 8 i < s takes lane t + s, i.e. slot i < h = s / 8 takes
    // slot i + h.
#pragma unroll
  for (int h = kSlots / 2; h >= 1; h /= 2) {
    __syncthreads();
    if (i < h) {
#pragma unroll
      for (int q = 0; q < C; ++q) tree[q][i][g] = __fadd_rn(tree[q][i][g], tree[q][i + h][g]);
    }
  }
  if (i == 0) {
    const std::int64_t r0 = ow.q * src.inner + i0;
#pragma unroll
    for (int q = 0; q < C; ++q) {
      if (q < count) remnants[((r0 + q) * chunks + wc.r) * kResidues + b] = tree[q][0][g];
    }
  }
}

// Levels 4, 2, 1 over a chunk's 8 remnants: its sum, final (one chunk) or into `partial` for the
// passes over chunk sums.
__global__ void __launch_bounds__(kFinishThreads)
    finish_kernel(const float* remnants, std::int64_t items, std::int64_t chunks, Sink sink,
                  float* partial) {
  const std::int64_t item = std::int64_t{blockIdx.x} * kFinishThreads + threadIdx.x;
  if (item >= items) return;
  const float4 lo = reinterpret_cast<const float4*>(remnants)[2 * item];
  const float4 hi = reinterpret_cast<const float4*>(remnants)[2 * item + 1];
  float v[kResidues] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
#pragma unroll
  for (int s = kResidues / 2; s >= 1; s /= 2) {
#pragma unroll
    for (int t = 0; t < s; ++t) v[t] = __fadd_rn(v[t], v[t + s]);
  }
  if (chunks == 1)
    sink.write(item, v[0]);
  else
    partial[item] = v[0];
}

template <typename T>
Status launch_long_columns(const T* x, Source src, std::int64_t outer, float* remnants,
                           cudaStream_t stream) {
  const std::int64_t groups_per_outer = (src.inner + kColumns<T> - 1) / kColumns<T>;
  const std::int64_t widths = (groups_per_outer + kWidth - 1) / kWidth;
  const std::int64_t blocks = outer * widths * chunks(src.n) * kResidues;
  if (blocks > kMaxBlocks) return Status::invalid_argument;
  long_column_kernel<T><<<static_cast<unsigned>(blocks), kLongThreads, 0, stream>>>(
      x, src, groups_per_outer, widths, chunks(src.n), remnants);
  return launched();
}

}  // namespace

std::size_t long_column_remnant_floats(std::int64_t reductions, std::int64_t n) {
  return static_cast<std::size_t>(reductions) * static_cast<std::size_t>(chunks(n)) * kResidues;
}

template <typename T>
Status long_columns(const T* x, Source src, std::int64_t outer, float* remnants, Sink sink,
                    float* partial, cudaStream_t stream) {
  const std::int64_t c = chunks(src.n);
  const std::int64_t items = outer * src.inner * c;
  const std::int64_t finish_blocks = (items + kFinishThreads - 1) / kFinishThreads;
  if (finish_blocks > kMaxBlocks) return Status::invalid_argument;
  const Status first = launch_long_columns<T>(x, src, outer, remnants, stream);
  if (first != Status::ok) return first;
  finish_kernel<<<static_cast<unsigned>(finish_blocks), kFinishThreads, 0, stream>>>(
      remnants, items, c, sink, partial);
  return launched();
}

template Status long_columns<float>(const float*, Source, std::int64_t, float*, Sink, float*,
                                    cudaStream_t);
template Status long_columns<__half>(const __half*, Source, std::int64_t, float*, Sink, float*,
                                     cudaStream_t);
template Status long_columns<__nv_bfloat16>(const __nv_bfloat16*, Source, std::int64_t, float*,
                                            Sink, float*, cudaStream_t);

}  // namespace samebits::kernels::reduce_device
