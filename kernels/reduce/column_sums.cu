// column_kernel: column sums, reductions of at most 128 elements side by side in memory, eight
// threads per 16 bytes of adjacent reductions, so that each warp load reads 64 contiguous bytes.
#include "kernels/reduce/reduce_device.cuh"

namespace samebits::kernels::reduce_device {
namespace {

// Column sums: reductions side by side in memory (stride_inner == 1), each of n <= 128 elements
// walked at stride_length. Eight threads share a group of kColumns<T> adjacent reductions (16
// bytes of each row: 4 float32 or 8 16-bit values); thread g holds lanes t = g + 8 m (m = 0..3),
// rows 4 t .. 4 t + 3. The tree's levels 16 and 8 pair lanes of one thread (m with m + 2, then
// m + 1); levels 4, 2, 1 pair threads g and g + s through shuffles. A warp holds four groups side
// by side, so each of its loads reads 64 contiguous bytes of eight rows.
constexpr int kGroupThreads = 8;
constexpr int kGroupLanes = 32 / kGroupThreads;     // 4 lanes per thread
constexpr int kGroupsPerWarp = 32 / kGroupThreads;  // 4
constexpr int kColumnThreads = 256;
constexpr int kGroupsPerBlock = kColumnThreads / kGroupThreads;
// Thread g's lanes g + 8 m of one group, which start at +0.0: rows 4 t + j added in order j = 0..3.
// kVector (all kColumns<T> present, every row 16-byte aligned): all sixteen row reads are issued
// first, a missing row reading as +0.0 (which leaves a lane sum's bits alone); otherwise scalar
// reads of the `count` columns present.
template <typename T, bool kVector>
__device__ __forceinline__ void group_lanes(const T* base, std::int64_t stride, std::int64_t n,
                                            int count, int g,
                                            float (&lane)[kGroupLanes][kColumns<T>]) {
  constexpr int C = kColumns<T>;
  if constexpr (kVector) {
    ColumnWord<T> rows[kGroupLanes][4];
#pragma unroll
    for (int m = 0; m < kGroupLanes; ++m) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const std::int64_t p = 4 * (g + kGroupThreads * m) + j;
        rows[m][j] =
            p < n ? *reinterpret_cast<const ColumnWord<T>*>(base + p * stride) : ColumnWord<T>{};
      }
    }
#pragma unroll
    for (int m = 0; m < kGroupLanes; ++m) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        float v[C];
        widen_columns<T>(rows[m][j], v);
#pragma unroll
        for (int q = 0; q < C; ++q) lane[m][q] = __fadd_rn(lane[m][q], v[q]);
      }
    }
  } else {
#pragma unroll
    for (int m = 0; m < kGroupLanes; ++m) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const std::int64_t p = 4 * (g + kGroupThreads * m) + j;
        if (p < n) {
#pragma unroll
          for (int q = 0; q < C; ++q) {
            if (q < count) lane[m][q] = __fadd_rn(lane[m][q], to_float(base[p * stride + q]));
          }
        }
      }
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(kColumnThreads)
    column_kernel(const T* x, Source src, std::int64_t groups, std::int64_t groups_per_outer,
                  Sink sink) {
  constexpr int C = kColumns<T>;
  const int in_warp = threadIdx.x % 32;
  const int g = in_warp / kGroupsPerWarp;
  const std::int64_t group = std::int64_t{blockIdx.x} * kGroupsPerBlock +
                             threadIdx.x / 32 * kGroupsPerWarp + in_warp % kGroupsPerWarp;
  // No early exit: every thread of the warp takes part in the shuffles.
  const bool live = group < groups;
  float lane[kGroupLanes][C] = {};  // lane sums start at +0.0
  std::int64_t first = 0;           // the group's first reduction
  int count = 0;                    // how many of its C reductions exist
  if (live) {
    const Quotient og = divide(group, groups_per_outer);
    const std::int64_t o = og.q, i0 = og.r * C;
    count = src.inner - i0 < C ? static_cast<int>(src.inner - i0) : C;
    first = o * src.inner + i0;
    const T* base = x + o * src.stride_outer + i0;
    const bool vector = count == C && reinterpret_cast<std::uintptr_t>(base) % 16 == 0 &&
                        src.stride_length * static_cast<std::int64_t>(sizeof(T)) % 16 == 0;
    if (vector)
      group_lanes<T, true>(base, src.stride_length, src.n, count, g, lane);
    else
      group_lanes<T, false>(base, src.stride_length, src.n, count, g, lane);
  }
#pragma unroll
  for (int q = 0; q < C; ++q) {
    lane[0][q] = __fadd_rn(lane[0][q], lane[2][q]);  // s = 16
    lane[1][q] = __fadd_rn(lane[1][q], lane[3][q]);
    lane[0][q] = __fadd_rn(lane[0][q], lane[1][q]);  // s = 8
  }
#pragma unroll
  for (int s = 4; s >= 1; s /= 2) {  // thread g + s of the same group is s * 4 lanes down
#pragma unroll
    for (int q = 0; q < C; ++q)
      lane[0][q] =
          __fadd_rn(lane[0][q], __shfl_down_sync(0xffffffffu, lane[0][q], s * kGroupsPerWarp));
  }
  if (live && g == 0) {
#pragma unroll
    for (int q = 0; q < C; ++q) {
      if (q < count) sink.write(first + q, lane[0][q]);  // constant q keeps `lane` in registers
    }
  }
}

}  // namespace

// Groups of kColumns<T> adjacent reductions, src.inner / kColumns<T> (rounded up) per outer index.
template <typename T>
Status column_sums(const T* x, Source src, std::int64_t outer, Sink sink, cudaStream_t stream) {
  const std::int64_t groups_per_outer = (src.inner + kColumns<T> - 1) / kColumns<T>;
  const std::int64_t groups = outer * groups_per_outer;
  const std::int64_t blocks = (groups + kGroupsPerBlock - 1) / kGroupsPerBlock;
  if (blocks > kMaxBlocks) return Status::invalid_argument;
  column_kernel<T><<<static_cast<unsigned>(blocks), kColumnThreads, 0, stream>>>(
      x, src, groups, groups_per_outer, sink);
  return launched();
}

template Status column_sums<float>(const float*, Source, std::int64_t, Sink, cudaStream_t);
template Status column_sums<__half>(const __half*, Source, std::int64_t, Sink, cudaStream_t);
template Status column_sums<__nv_bfloat16>(const __nv_bfloat16*, Source, std::int64_t, Sink,
                                           cudaStream_t);

}  // namespace samebits::kernels::reduce_device
