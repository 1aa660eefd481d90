// The bf16 / f16 linear on Hopper's warpgroup MMA: tiles land through the bulk tensor copy engine
// (TMA), wgmma m64nNk16 steps run in ascending k from +0, the order of invariant_linear_order.h.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

#include "kernels/common/cuda_status.h"
#include "kernels/common/occupancy.h"
#include "kernels/common/shared_memory.h"
#include "kernels/common/stage_barriers.cuh"
#include "kernels/common/tensor_map.h"
#include "kernels/common/warpgroup_instructions.cuh"
#include "kernels/common/warpgroup_mma.cuh"
#include "kernels/linear/invariant_linear_order.h"
#include "kernels/linear/linear_elements.cuh"
#include "kernels/linear/linear_kernels.h"

namespace samebits::kernels {
namespace {

// Two shapes of one kernel. A block's computing warpgroups each own 64 rows of the "a" operand
// and all kN rows of the "b" operand; a warp after them issues the copies. Prefill: a = x rows
// (two warpgroups, 128 rows), b = 256 rows of w. Decode (rows <= 64): a = 64 rows of w, b = every
// row of x (16 or 64, zeros past the last): the block streams its rows of w once, and the grid
// spreads w over the GPU. Either way an output element is one accumulator in the same steps.
constexpr int kDepth = 64;  // K per stage: a 128-byte swizzled row of 64 16-bit elements
constexpr int kRowBytes = 128;
constexpr int kAlign = 1024;  // the swizzle's atom: 8 rows of 128 bytes

template <int Groups, int N, int Stages, bool Decode>
struct Shape {
  static constexpr int kGroups = Groups, kN = N, kStages = Stages;
  static constexpr bool kDecode = Decode;
  static constexpr int kARows = 64 * Groups;
  static constexpr int kABytes = kARows * kRowBytes, kBBytes = N * kRowBytes;
  static constexpr int kStageBytes = kABytes + kBBytes;
  static constexpr int kThreads = 128 * Groups + 32;  // the last warp issues the copies
  static constexpr int kSharedBytes = Stages * kStageBytes + kAlign;
  static_assert(kABytes % kAlign == 0 && kBBytes % kAlign == 0, "stages keep the swizzle's atom");
  static_assert(kGroups >= 1 && kStages >= 2 && N % 16 == 0 && N <= 256, "wgmma's N; a pipeline");
};
using Prefill = Shape<2, 256, 4, false>;
using PrefillNarrow = Shape<2, 128, 6, false>;  // where 256-wide tiles would leave SMs idle
using DecodeFew = Shape<1, 16, 16, true>;       // rows 1 .. 16
using DecodeMany = Shape<1, 64, 12, true>;      // rows 17 .. 64
constexpr std::int64_t kDecodeRows = 64;

using linear_elements::to_dtype;
using linear_elements::to_float;

struct Extents {
  std::int64_t rows, n, k;  // the problem's
  int a_tiles, b_tiles;     // tiles along the a and b operands
  const std::uint16_t* bias;
  std::uint16_t* out;
  bool paired;  // out can take two adjacent columns as one 4-byte store
  bool wide;    // and eight as one 16-byte store (n a multiple of 8, out 16-byte aligned)
};

// Output columns col and col + 1 of a row from their accumulators: the bias added, rounded to the
// dtype, packed (col in the low half). Columns at or past n are zeros (never stored).
template <DType T>
__device__ __forceinline__ std::uint32_t output_pair(float d0, float d1, std::int64_t col,
                                                     const Extents& e) {
  std::uint32_t packed = 0;
#pragma unroll
  for (int q = 0; q < 2; ++q) {
    if (col + q >= e.n) continue;
    const float b = e.bias ? to_float<T>(e.bias[col + q]) : 0.0f;
    const std::uint16_t v = to_dtype<T>(linear_order::add_bias(q ? d1 : d0, e.bias ? &b : nullptr));
    packed |= static_cast<std::uint32_t>(v) << (16 * q);
  }
  return packed;
}

// Lane c of a quad holds pairs[r] of the quad's 8-column block r; afterwards it holds the four
// pairs of block c (lane r's pairs[c]): two butterfly rounds, each swapping one bit of (lane, r).
__device__ __forceinline__ void transpose_quad(std::uint32_t (&pairs)[4], int c) {
#pragma unroll
  for (int b = 1; b <= 2; b *= 2) {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      if (r & b) continue;
      const bool upper = (c & b) != 0;
      const std::uint32_t got = __shfl_xor_sync(0xffffffffu, upper ? pairs[r] : pairs[r ^ b], b);
      if (upper)
        pairs[r] = got;
      else
        pairs[r ^ b] = got;
    }
  }
}

template <DType T, class S>
__global__ void __launch_bounds__(S::kThreads, 1)
    linear_warpgroups(const __grid_constant__ CUtensorMap a_map,
                      const __grid_constant__ CUtensorMap b_map, const Extents e) {
#if defined(SAMEBITS_WGMMA_DEVICE)
  extern __shared__ __align__(16) std::uint8_t smem_raw[];
  __shared__ __align__(8) std::uint64_t stage_full[S::kStages], stage_empty[S::kStages];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;

  const auto full = static_cast<std::uint32_t>(__cvta_generic_to_shared(stage_full));
  const auto empty = static_cast<std::uint32_t>(__cvta_generic_to_shared(stage_empty));
  if (tid == 0) {
    for (int s = 0; s < S::kStages; ++s) {
      warpgroup::barrier_init(full + s * 8, 1);
      warpgroup::barrier_init(empty + s * 8, 4 * S::kGroups);  // the computing warps
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  const auto raw = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem_raw));
  const std::uint32_t base = (raw + kAlign - 1) & ~static_cast<std::uint32_t>(kAlign - 1);
  const int k_tiles = static_cast<int>((e.k + kDepth - 1) / kDepth);
  const int tiles = e.a_tiles * e.b_tiles;

  // A persistent grid: block b computes tiles b, b + grid, ..., the copies of the next tile
  // streaming in while the last one's outputs are written. Tiles go in groups of 8 along a, so
  // that the tiles in flight at once share their b tiles and a few a tiles in L2. Which block
  // computes which tile changes no bits.
  auto tile_origin = [&](int t, int& a0, int& b0) {
    constexpr int kGroup = 8;
    const int per_group = kGroup * e.b_tiles, first = (t / per_group) * kGroup;
    const int size = min(e.a_tiles - first, kGroup);
    a0 = (first + (t % per_group) % size) * S::kARows;
    b0 = ((t % per_group) / size) * S::kN;
  };

  if (warp == 4 * S::kGroups) {  // the copying warp: one thread issues every copy
    if (lane == 0) {
      int it = 0;  // stages filled so far, over every tile of the block
      for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        int a0, b0;
        tile_origin(t, a0, b0);
        for (int j = 0; j < k_tiles; ++j, ++it) {
          const int s = it % S::kStages;
          if (it >= S::kStages) warpgroup::barrier_wait(empty + s * 8, (it / S::kStages + 1) & 1);
          const std::uint32_t at = base + s * S::kStageBytes;
          warpgroup::barrier_arrive_expecting(full + s * 8, S::kStageBytes);
          warpgroup::bulk_copy_2d(at, &a_map, j * kDepth, a0, full + s * 8);
          warpgroup::bulk_copy_2d(at + S::kABytes, &b_map, j * kDepth, b0, full + s * 8);
        }
      }
    }
    return;
  }

  // Broadcast from lane 0, so that ptxas sees the branches around wgmma as uniform.
  const int group = __shfl_sync(0xffffffffu, warp / 4, 0);
  const warpgroup::Descriptor a_desc =
      warpgroup::descriptor_of(base + group * 64 * kRowBytes, 16, 1024);
  const warpgroup::Descriptor b_desc = warpgroup::descriptor_of(base + S::kABytes, 16, 1024);
  const int w = warp % 4, g = lane / 4, c = lane % 4;
  constexpr int kStepsPerStage = kDepth / linear_order::kStep;
  const int whole = static_cast<int>(e.k / kDepth);
  const int tail_steps = __shfl_sync(0xffffffffu, static_cast<int>((e.k % kDepth + 15) / 16), 0);
  float d[S::kN / 8][4];
  int it = 0;  // stages consumed so far, over every tile of the block
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int a0, b0;
    tile_origin(t, a0, b0);
#pragma unroll
    for (int j = 0; j < S::kN / 8; ++j)
#pragma unroll
      for (int q = 0; q < 4; ++q) d[j][q] = 0.0f;
    warpgroup::pin<S::kN / 8>(d);  // the zeros set before the first wgmma.fence

    // Stage after stage, 16-wide steps in ascending k; each stage given back once its steps
    // have completed (the previous one after this one's are issued, the last one at the end).
    // Whole stages run their four steps unconditionally (a branch around wgmma makes ptxas wait
    // between them); the last stage of a K that is not a multiple of 64 runs only the steps
    // that start below K: a step past K is not a step (its +0 products would turn an exact -0
    // sum into +0).
    auto stage_in = [&]() {
      warpgroup::barrier_wait(full + (it % S::kStages) * 8, (it / S::kStages) & 1);
      warpgroup::fence();
      return static_cast<std::uint32_t>((it % S::kStages) * S::kStageBytes);
    };
    auto give_back = [&](int stage_it) {
      __syncwarp();
      if (lane == 0) warpgroup::barrier_arrive(empty + (stage_it % S::kStages) * 8);
    };
    for (int j = 0; j < whole; ++j, ++it) {
      const std::uint32_t at = stage_in();
#pragma unroll
      for (int step = 0; step < kStepsPerStage; ++step)
        warpgroup::mma_ss<T, S::kN>(d, a_desc.at(at + 32 * step), b_desc.at(at + 32 * step));
      warpgroup::commit();
      warpgroup::wait<1>();
      if (j > 0) give_back(it - 1);
    }
    if (whole < k_tiles) {
      const std::uint32_t at = stage_in();
#pragma unroll
      for (int step = 0; step < kStepsPerStage; ++step)
        if (step < tail_steps)
          warpgroup::mma_ss<T, S::kN>(d, a_desc.at(at + 32 * step), b_desc.at(at + 32 * step));
      warpgroup::commit();
      warpgroup::wait<1>();
      if (whole > 0) give_back(it - 1);
      ++it;
    }
    warpgroup::wait<0>();
    give_back(it - 1);
    warpgroup::pin<S::kN / 8>(d);

    // Lane (g, c) of warp w holds a rows 16 w + g and + 8, b rows 8 j + 2 c and + 1.
    if constexpr (!S::kDecode) {
      if (e.wide) {  // a quad's four lanes trade pairs: each then stores 8 columns at once
#pragma unroll
        for (int jg = 0; jg < S::kN / 32; ++jg) {
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            std::uint32_t pairs[4];
#pragma unroll
            for (int r = 0; r < 4; ++r)
              pairs[r] = output_pair<T>(d[4 * jg + r][2 * h], d[4 * jg + r][2 * h + 1],
                                        b0 + 8 * (4 * jg + r) + 2 * c, e);
            transpose_quad(pairs, c);
            const std::int64_t a_row = a0 + group * 64 + w * 16 + g + 8 * h;
            const std::int64_t col = b0 + 8 * (4 * jg + c);
            if (a_row < e.rows && col < e.n)
              *reinterpret_cast<uint4*>(e.out + a_row * e.n + col) =
                  make_uint4(pairs[0], pairs[1], pairs[2], pairs[3]);
          }
        }
        continue;
      }
    }
#pragma unroll
    for (int j = 0; j < S::kN / 8; ++j) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const std::int64_t a_row = a0 + group * 64 + w * 16 + g + 8 * h;
        const std::int64_t b_row = b0 + 8 * j + 2 * c;
        if constexpr (S::kDecode) {  // a = w rows (output columns), b = x rows (output rows)
          if (a_row >= e.n) continue;
          const float b = e.bias ? to_float<T>(e.bias[a_row]) : 0.0f;
          const float* bias = e.bias ? &b : nullptr;
#pragma unroll
          for (int q = 0; q < 2; ++q)
            if (b_row + q < e.rows)
              e.out[(b_row + q) * e.n + a_row] =
                  to_dtype<T>(linear_order::add_bias(d[j][2 * h + q], bias));
        } else {  // a = x rows (output rows), b = w rows (output columns)
          if (a_row >= e.rows || b_row >= e.n) continue;
          std::uint16_t v[2];
#pragma unroll
          for (int q = 0; q < 2; ++q) {
            const float b = (e.bias && b_row + q < e.n) ? to_float<T>(e.bias[b_row + q]) : 0.0f;
            v[q] = to_dtype<T>(linear_order::add_bias(d[j][2 * h + q], e.bias ? &b : nullptr));
          }
          std::uint16_t* o = e.out + a_row * e.n + b_row;
          if (e.paired) {  // b_row is even and so is n: the pair is 4-byte aligned and in bounds
            *reinterpret_cast<std::uint32_t*>(o) = v[0] | (static_cast<std::uint32_t>(v[1]) << 16);
          } else {
            o[0] = v[0];
            if (b_row + 1 < e.n) o[1] = v[1];
          }
        }
      }
    }
  }
#endif
}

template <DType T, class S>
Status launch(const LinearProblem& p, cudaStream_t stream) {
  // Decode: a = w ([n, k], 64-row boxes), b = x (one box of kN rows). Prefill: a = x, b = w.
  const std::int64_t a_len = S::kDecode ? p.n : p.rows, b_len = S::kDecode ? p.rows : p.n;
  CUtensorMap a_map{}, b_map{};
  const bool mapped =
      S::kDecode ? encode_tensor_map(&a_map, T, p.w, p.n, p.k, p.w_row_stride, S::kARows) &&
                       encode_tensor_map(&b_map, T, p.x, p.rows, p.k, p.x_row_stride, S::kN)
                 : encode_tensor_map(&a_map, T, p.x, p.rows, p.k, p.x_row_stride, S::kARows) &&
                       encode_tensor_map(&b_map, T, p.w, p.n, p.k, p.w_row_stride, S::kN);
  if (!mapped)
    return Status::invalid_argument;  // linear_cuda_layout_ok(p) meets the engine's rules
  const std::int64_t a_tiles = (a_len + S::kARows - 1) / S::kARows;
  const std::int64_t b_tiles = (b_len + S::kN - 1) / S::kN;
  if (a_tiles * b_tiles >= (1LL << 31)) return Status::invalid_argument;
  Extents e{p.rows,
            p.n,
            p.k,
            static_cast<int>(a_tiles),
            static_cast<int>(b_tiles),
            static_cast<const std::uint16_t*>(p.bias),
            static_cast<std::uint16_t*>(p.out),
            false,
            false};
  e.paired = p.n % 2 == 0 && reinterpret_cast<std::uintptr_t>(p.out) % 4 == 0;
  e.wide = p.n % 8 == 0 && reinterpret_cast<std::uintptr_t>(p.out) % 16 == 0;
  auto* kernel = &linear_warpgroups<T, S>;
  if (const Status s = allow_dynamic_shared_memory(kernel, S::kSharedBytes); s != Status::ok)
    return s;
  // Persistent: as many blocks as the GPU holds at once (one per SM with this shared memory).
  const int resident = resident_blocks(reinterpret_cast<const void*>(kernel), S::kThreads,
                                       static_cast<std::size_t>(S::kSharedBytes));
  if (resident <= 0) {  // the driver's error, else a block that cannot fit on the GPU
    const cudaError_t error = cudaGetLastError();
    return error != cudaSuccess ? cuda_failure(error) : Status::invalid_argument;
  }
  const std::int64_t grid = std::min<std::int64_t>(a_tiles * b_tiles, resident);
  kernel<<<static_cast<unsigned>(grid), S::kThreads, S::kSharedBytes, stream>>>(a_map, b_map, e);
  return launch_status();
}

// Whether 128 x 128 tiles finish sooner than 128 x 256 ones: rounds of one tile per SM, a narrow
// tile costing a little over half a wide one (the same x rows are read for half the columns).
inline bool narrow_tiles_pay(const LinearProblem& p) {
  const int sms = multiprocessors();  // a prefill block per SM (its shared memory)
  if (sms <= 0) return false;
  const std::int64_t a = (p.rows + 127) / 128;
  const std::int64_t wide = (a * ((p.n + 255) / 256) + sms - 1) / sms;
  const std::int64_t narrow = (a * ((p.n + 127) / 128) + sms - 1) / sms;
  return 0.55 * static_cast<double>(narrow) < static_cast<double>(wide);
}

template <DType T>
Status launch_by_rows(const LinearProblem& p, LinearPath path, cudaStream_t stream) {
  if (path == LinearPath::decode && p.rows > kDecodeRows) return Status::invalid_argument;
  if (path == LinearPath::decode || (path == LinearPath::automatic && p.rows <= kDecodeRows))
    return p.rows <= 16 ? launch<T, DecodeFew>(p, stream) : launch<T, DecodeMany>(p, stream);
  if (path == LinearPath::prefill_narrow || (path == LinearPath::automatic && narrow_tiles_pay(p)))
    return launch<T, PrefillNarrow>(p, stream);
  return launch<T, Prefill>(p, stream);
}

}  // namespace

bool linear_warpgroups_take(const LinearProblem& p) {
#if defined(SAMEBITS_HAVE_SM90A)
  return p.k > 0 && (p.dtype == DType::bf16 || p.dtype == DType::f16);
#else
  (void)p;
  return false;
#endif
}

Status launch_linear_warpgroups(const LinearProblem& p, LinearPath path, cudaStream_t stream) {
  if (!linear_warpgroups_take(p)) return Status::invalid_argument;
  return p.dtype == DType::bf16 ? launch_by_rows<DType::bf16>(p, path, stream)
                                : launch_by_rows<DType::f16>(p, path, stream);
}

}  // namespace samebits::kernels
