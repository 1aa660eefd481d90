// short_column_kernel: column sums of 129 to 1024 rows (step 0 of one chunk) in one launch, a
// thread per lane slot and 16 bytes of adjacent columns; no remnants, no second launch.
#include "kernels/reduce/reduce_device.cuh"

namespace samebits::kernels::reduce_device {
namespace {

// A block holds W groups of kColumns<T> adjacent reductions (16 bytes of a row each; W = 8: a
// warp's load reads whole 128-byte lines of 4 rows) and Slots lane slots. Thread (i, g), g
// fastest, is lanes t = i + Slots m (m < M) of group g: rows 4 t + j, j = 0..3, added from +0.0
// in order j, only rows p < n (as the order reads them). The order's tree then runs in three
// parts, each level exactly as invariant_reduce_order.h pairs lanes:
//  - levels s >= Slots M: every lane t + s is empty (t + s >= Slots M > (n - 1) / 4); they add
//    +0.0 to lane sums, which are never -0.0 (a sum from +0.0 is -0.0 only in directed rounding),
//    so they change no bit and are skipped;
//  - levels Slots M / 2 .. Slots: lane i + Slots m takes i + Slots (m + s / Slots), both in one
//    thread;
//  - levels Slots / 2 .. 1: the slots' values go through shared memory, and one warp per column
//    runs them (Slots 64: lane l adds slot l + 32, then the five shuffle levels of warp_tree).
template <int Slots, int M, int Threads>
struct Shape {
  static constexpr int kSlots = Slots, kPerThread = M, kThreads = Threads;
  static constexpr int kWidth = Threads / Slots;    // groups per block
  static constexpr int kPad = Slots + 32 / kWidth;  // a warp's (g, i) stores hit 32 banks
  static_assert(Slots == 32 || Slots == 64, "the tree pass reads one or two slots per lane");
  static_assert(kWidth * 16 == 128, "a warp's row load is one 128-byte line");
};
using Rows256 = Shape<32, 2, 256>;   // n <= 256: lanes t < 64
using Rows512 = Shape<32, 4, 256>;   // n <= 512: lanes t < 128
using Rows1024 = Shape<64, 4, 512>;  // n <= 1024: all 256 lanes of step 0

// Lanes i + Slots m of one group: vector (all kColumns<T> present, 16-byte aligned rows) reads
// every row word before the first add; otherwise scalar reads of the `count` columns present.
template <typename T, int Slots, int M>
__device__ __forceinline__ void slot_lanes(const T* base, std::int64_t stride, std::int64_t n,
                                           int count, bool vector, int i,
                                           float (&acc)[M][kColumns<T>]) {
  constexpr int C = kColumns<T>;
  if (vector) {
    ColumnWord<T> rows[M][kVector];
#pragma unroll
    for (int m = 0; m < M; ++m) {
#pragma unroll
      for (int j = 0; j < kVector; ++j) {
        const std::int64_t p = kVector * (i + Slots * m) + j;
        rows[m][j] =
            p < n ? *reinterpret_cast<const ColumnWord<T>*>(base + p * stride) : ColumnWord<T>{};
      }
    }
#pragma unroll
    for (int m = 0; m < M; ++m) {
#pragma unroll
      for (int j = 0; j < kVector; ++j) {
        if (kVector * (i + Slots * m) + j >= n) continue;
        float v[C];
        widen_columns<T>(rows[m][j], v);
#pragma unroll
        for (int q = 0; q < C; ++q) acc[m][q] = __fadd_rn(acc[m][q], v[q]);
      }
    }
    return;
  }
#pragma unroll
  for (int m = 0; m < M; ++m) {
#pragma unroll
    for (int j = 0; j < kVector; ++j) {
      const std::int64_t p = kVector * (i + Slots * m) + j;
      if (p >= n) continue;
#pragma unroll
      for (int q = 0; q < C; ++q) {
        if (q < count) acc[m][q] = __fadd_rn(acc[m][q], to_float(base[p * stride + q]));
      }
    }
  }
}

// Block (o, w): outer index o, groups w W .. w W + W - 1 of it. Every thread reaches the barrier
// and the shuffles (no early exit); threads of missing groups hold empty lanes.
template <typename T, typename S>
__global__ void __launch_bounds__(S::kThreads)
    short_column_kernel(const T* x, Source src, std::int64_t groups_per_outer,
                        std::int64_t widths_per_outer, Sink sink) {
  constexpr int C = kColumns<T>, W = S::kWidth, Slots = S::kSlots, M = S::kPerThread;
  constexpr int kPerWarp = C * W / (S::kThreads / 32);  // columns whose last levels a warp runs
  __shared__ float tree[C * W * S::kPad];               // [q][g][slot], slots padded
  const int g = threadIdx.x % W, i = threadIdx.x / W;
  const Quotient ow = divide(blockIdx.x, widths_per_outer);
  const auto columns_of = [&](std::int64_t group) {  // reductions present in a group
    if (group >= groups_per_outer) return 0;
    return src.inner - group * C < C ? static_cast<int>(src.inner - group * C) : C;
  };
  const std::int64_t group = ow.r * W + g;
  const int count = columns_of(group);
  float acc[M][C] = {};  // lane sums start at +0.0
  if (count > 0) {
    const T* base = x + ow.q * src.stride_outer + group * C;
    const bool vector = count == C && reinterpret_cast<std::uintptr_t>(base) % 16 == 0 &&
                        src.stride_length * static_cast<std::int64_t>(sizeof(T)) % 16 == 0;
    slot_lanes<T, Slots, M>(base, src.stride_length, src.n, count, vector, i, acc);
  }
#pragma unroll
  for (int h = M / 2; h >= 1; h /= 2) {  // levels Slots h: lane m takes lane m + h
#pragma unroll
    for (int m = 0; m < h; ++m) {
#pragma unroll
      for (int q = 0; q < C; ++q) acc[m][q] = __fadd_rn(acc[m][q], acc[m + h][q]);
    }
  }
#pragma unroll
  for (int q = 0; q < C; ++q) tree[(q * W + g) * S::kPad + i] = acc[0][q];
  __syncthreads();
  // Warp v runs the last levels of its block columns v kPerWarp + k (k < kPerWarp; column b is
  // group b / C, reduction b % C of it); lane k keeps column k's result, so lanes 0 .. kPerWarp - 1
  // write adjacent outputs.
  const int v = threadIdx.x / 32, l = threadIdx.x % 32;
  float result = 0.0f;
#pragma unroll
  for (int k = 0; k < kPerWarp; ++k) {
    const int b = v * kPerWarp + k;
    const float* slots = tree + ((b % C) * W + b / C) * S::kPad;
    float lane = slots[l];
    if constexpr (Slots == 64) lane = __fadd_rn(lane, slots[l + 32]);  // level 32
    const float sum = __shfl_sync(0xffffffffu, warp_tree(lane), 0);
    if (l == k) result = sum;
  }
  if (l < kPerWarp) {
    const int b = v * kPerWarp + l;
    const std::int64_t mine = ow.r * W + b / C;
    if (b % C < columns_of(mine)) sink.write(ow.q * src.inner + mine * C + b % C, result);
  }
}

template <typename T, typename S>
Status launch(const T* x, Source src, std::int64_t outer, Sink sink, cudaStream_t stream) {
  const std::int64_t groups_per_outer = (src.inner + kColumns<T> - 1) / kColumns<T>;
  const std::int64_t widths = (groups_per_outer + S::kWidth - 1) / S::kWidth;
  const std::int64_t blocks = outer * widths;
  if (blocks > kMaxBlocks) return Status::invalid_argument;
  short_column_kernel<T, S><<<static_cast<unsigned>(blocks), S::kThreads, 0, stream>>>(
      x, src, groups_per_outer, widths, sink);
  return launched();
}

}  // namespace

template <typename T>
Status short_columns(const T* x, Source src, std::int64_t outer, Sink sink, cudaStream_t stream) {
  if (src.n > kShortColumnMax) return Status::invalid_argument;
  if (src.n <= 4 * 64) return launch<T, Rows256>(x, src, outer, sink, stream);
  if (src.n <= 4 * 128) return launch<T, Rows512>(x, src, outer, sink, stream);
  return launch<T, Rows1024>(x, src, outer, sink, stream);
}

template Status short_columns<float>(const float*, Source, std::int64_t, Sink, cudaStream_t);
template Status short_columns<__half>(const __half*, Source, std::int64_t, Sink, cudaStream_t);
template Status short_columns<__nv_bfloat16>(const __nv_bfloat16*, Source, std::int64_t, Sink,
                                             cudaStream_t);

}  // namespace samebits::kernels::reduce_device
