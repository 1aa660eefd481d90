// medium_row_kernel: many rows of 129 to 1024 elements (16-bit types: to 4096), a warp per few
// rows, every read 16 bytes and issued before the first add, so that enough bytes are in flight.
#include "kernels/reduce/reduce_device.cuh"

namespace samebits::kernels::reduce_device {
namespace {

// A warp sums R rows at once. A 16-byte word holds V = 16 / sizeof(T) consecutive elements, i.e.
// E = V / 4 lanes of one step (f32: one lane, 16-bit: two). Thread w reads, for each row, the words
// u = w + 32 i (i < I) of each step k < K: elements 1024 k + V u .. + V - 1, which are lanes
// t = E u + e (e < E). All R K I words are in registers before the first add. Lane t then adds its
// elements from +0.0 in order k, then j, and the order's tree runs in three parts:
//  - levels s >= 32 E I: every lane t + s is empty (K = 1 and n <= 32 V I, so 4 (t + s) >= n;
//    K = 4 covers all 256 lanes); they would add +0.0 to values that are never -0.0 (a sum that
//    starts at +0.0 is -0.0 only in directed rounding), change no bit, and are skipped;
//  - levels 32 E h (h = I / 2 .. 1): lane E (w + 32 i) + e takes E (w + 32 (i + h)) + e, in-thread;
//  - levels E d (d = 16 .. 1): thread w takes thread w + d's lane of the same e (shuffles), and
//    for E = 2, level 1: lane 0 (e = 0) takes lane 1 (e = 1), in thread 0.
// Elements past a row's end read as zero bits (+0.0), which leave a lane sum's bits alone.
template <int Steps, int PerStep, int Rows>
struct Shape {
  static constexpr int kSteps = Steps, kPerStep = PerStep, kRows = Rows;
};
constexpr int kMediumWarps = 8;  // per block

// Rows not contiguous or not 16-byte aligned: a word's first `count` elements (at most V) from p,
// `stride` apart, as the bits of a 16-byte word; the rest are zero bits (+0.0 in every dtype).
template <typename T>
__device__ __forceinline__ ColumnWord<T> gather_word(const T* p, std::int64_t stride,
                                                     std::int64_t count) {
  constexpr int V = kColumns<T>;
  if constexpr (sizeof(T) == 4) {
    float v[V];
#pragma unroll
    for (int q = 0; q < V; ++q) v[q] = q < count ? p[q * stride] : 0.0f;
    return {v[0], v[1], v[2], v[3]};
  } else {
    const auto* bits = reinterpret_cast<const unsigned short*>(p);
    unsigned int w[V / 2] = {};
#pragma unroll
    for (int q = 0; q < V; ++q) {
      if (q < count) w[q / 2] |= static_cast<unsigned int>(bits[q * stride]) << (16 * (q % 2));
    }
    return {w[0], w[1], w[2], w[3]};
  }
}

template <typename T, typename S>
__global__ void __launch_bounds__(kMediumWarps * 32)
    medium_row_kernel(const T* x, Source src, std::int64_t reductions, Sink sink) {
  constexpr int V = kColumns<T>, E = V / kVector;
  constexpr int K = S::kSteps, I = S::kPerStep, R = S::kRows;
  static_assert(K == 1 || 32 * E * I == kLanes, "rows of several steps need all 256 lanes");
  const std::int64_t first =
      (std::int64_t{blockIdx.x} * kMediumWarps + threadIdx.x / 32) * R;  // the warp's first row
  if (first >= reductions) return;  // whole warps leave together
  const int w = threadIdx.x % 32;
  ColumnWord<T> words[R][K][I];
#pragma unroll
  for (int q = 0; q < R; ++q) {
    const std::int64_t r = first + q;
    const bool present = r < reductions;
    const std::int64_t n = present ? src.length(r) : 0;
    const T* row = x + (present ? src.start(r) : 0);
    const std::int64_t stride = src.stride_length;
    const bool vector = stride == 1 && reinterpret_cast<std::uintptr_t>(row) % 16 == 0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
#pragma unroll
      for (int i = 0; i < I; ++i) {
        const std::int64_t p = std::int64_t{k} * kStepSpan + V * (w + 32 * i);
        const std::int64_t left = n - p;  // elements of the row from p on
        if (vector && left >= V)
          words[q][k][i] = *reinterpret_cast<const ColumnWord<T>*>(row + p);
        else if (left > 0)
          words[q][k][i] = gather_word(row + p * stride, stride, left);
        else
          words[q][k][i] = ColumnWord<T>{};
      }
    }
  }
  float acc[R][I][E] = {};  // lane sums start at +0.0
#pragma unroll
  for (int q = 0; q < R; ++q) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
#pragma unroll
      for (int i = 0; i < I; ++i) {
        float v[V];
        widen_columns<T>(words[q][k][i], v);
#pragma unroll
        for (int e = 0; e < E; ++e) {
#pragma unroll
          for (int j = 0; j < kVector; ++j)
            acc[q][i][e] = __fadd_rn(acc[q][i][e], v[kVector * e + j]);
        }
      }
    }
  }
#pragma unroll
  for (int q = 0; q < R; ++q) {
#pragma unroll
    for (int h = I / 2; h >= 1; h /= 2) {  // levels 32 E h, in-thread
#pragma unroll
      for (int i = 0; i < h; ++i) {
#pragma unroll
        for (int e = 0; e < E; ++e) acc[q][i][e] = __fadd_rn(acc[q][i][e], acc[q][i + h][e]);
      }
    }
#pragma unroll
    for (int d = 16; d >= 1; d /= 2) {  // levels E d, shuffles
#pragma unroll
      for (int e = 0; e < E; ++e)
        acc[q][0][e] = __fadd_rn(acc[q][0][e], __shfl_down_sync(0xffffffffu, acc[q][0][e], d));
    }
    if constexpr (E == 2) acc[q][0][0] = __fadd_rn(acc[q][0][0], acc[q][0][1]);  // level 1
    if (w == 0 && first + q < reductions) sink.write(first + q, acc[q][0][0]);
  }
}

template <typename T, typename S>
Status launch(const T* x, Source src, std::int64_t reductions, Sink sink, cudaStream_t stream) {
  constexpr std::int64_t kRowsPerBlock = std::int64_t{kMediumWarps} * S::kRows;
  const std::int64_t blocks = (reductions + kRowsPerBlock - 1) / kRowsPerBlock;
  if (blocks > kMaxBlocks) return Status::invalid_argument;
  medium_row_kernel<T, S>
      <<<static_cast<unsigned>(blocks), kMediumWarps * 32, 0, stream>>>(x, src, reductions, sink);
  return launched();
}

}  // namespace

// Shapes (steps, words per step per thread, rows per warp): 32 registers of words per thread.
template <typename T>
Status medium_rows(const T* x, Source src, std::int64_t reductions, std::int64_t max_n, Sink sink,
                   cudaStream_t stream) {
  if (max_n > kMediumRowMax<T>) return Status::invalid_argument;
  if constexpr (sizeof(T) == 2) {  // 8 elements a word
    if (max_n <= 256) return launch<T, Shape<1, 1, 8>>(x, src, reductions, sink, stream);
    if (max_n <= 512) return launch<T, Shape<1, 2, 4>>(x, src, reductions, sink, stream);
    if (max_n <= kStepSpan) return launch<T, Shape<1, 4, 2>>(x, src, reductions, sink, stream);
    return launch<T, Shape<kSteps, 4, 1>>(x, src, reductions, sink, stream);
  } else {  // 4 elements a word
    if (max_n <= 256) return launch<T, Shape<1, 2, 4>>(x, src, reductions, sink, stream);
    if (max_n <= 512) return launch<T, Shape<1, 4, 2>>(x, src, reductions, sink, stream);
    return launch<T, Shape<1, 8, 1>>(x, src, reductions, sink, stream);
  }
}

template Status medium_rows<float>(const float*, Source, std::int64_t, std::int64_t, Sink,
                                   cudaStream_t);
template Status medium_rows<__half>(const __half*, Source, std::int64_t, std::int64_t, Sink,
                                    cudaStream_t);
template Status medium_rows<__nv_bfloat16>(const __nv_bfloat16*, Source, std::int64_t, std::int64_t,
                                           Sink, cudaStream_t);

}  // namespace samebits::kernels::reduce_device
