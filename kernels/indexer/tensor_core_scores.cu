// The tensor_cores indexer scores: per (item, up to 4 tiles of 128 keys) one block computes each
// tile's [keys x heads] dots with mma.sync (keys as the A rows, q as the B columns; bf16, or f16
// for fp8 inputs), steps in ascending j, then relu * w and the head sum in registers, in the order
// of invariant_indexer_order.h. The next tile's keys stream in while one is multiplied.
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_pipeline.h>

#include <cstdint>
#include <type_traits>

#include "kernels/common/cuda_status.h"
#include "kernels/common/mma_instructions.cuh"
#include "kernels/common/occupancy.h"
#include "kernels/common/shared_memory.h"
#include "kernels/indexer/invariant_indexer_order.h"
#include "kernels/indexer/item_bounds.h"
#include "kernels/indexer/tensor_core_scores.h"

namespace samebits::kernels {
namespace {

using namespace indexer_order;

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
constexpr int kTileKeys = 128;  // warp w owns keys 32 w .. 32 w + 31 of the tile: two MMA row tiles
constexpr int kMostTilesPerBlock = 4;  // a block's consecutive tiles share q and overlap loads
constexpr int kStep = 16;              // the k extent of one m16n8k16 instruction

struct Fp8 {
  std::uint8_t bits;
};

// bf16 inputs go through the bf16 MMA as they are; fp8 e4m3 ones through the f16 MMA, each value
// widened exactly (every e4m3 value, NaN included, is a half) on its way into a fragment.
template <typename In>
constexpr bool kBf16 = std::is_same_v<In, __nv_bfloat16>;

__device__ __forceinline__ std::uint32_t two_e4m3_as_f16(std::uint16_t raw) {
  const __half2_raw h =
      __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(raw), __NV_E4M3);
  return static_cast<std::uint32_t>(h.x) | (static_cast<std::uint32_t>(h.y) << 16);
}

// Two consecutive inputs of a shared row as one MMA operand register (the lower j in bits 0..15).
template <typename In>
__device__ __forceinline__ std::uint32_t operand(const unsigned char* row, int j) {
  if constexpr (kBf16<In>) {
    return *reinterpret_cast<const std::uint32_t*>(row + 2 * j);
  } else {
    return two_e4m3_as_f16(*reinterpret_cast<const std::uint16_t*>(row + j));
  }
}

// Copies rows [0, rows) of a row-major [*, head_dim] input to shared rows of `row_bytes`, 4
// inputs (a quad) per cp.async, all in flight at once: rows below valid_rows and quads below
// head_dim / 4 from src, zeros up to padded_dim. Quad i = r * quads + quad is walked by steps: a
// division per copy cost a sixth of the exact kernel's time.
template <typename In>
__device__ __forceinline__ void copy_rows(const In* src, int rows, int valid_rows, int head_dim,
                                          int padded_dim, int row_bytes, unsigned char* dst) {
  constexpr int kQuadBytes = 4 * sizeof(In);
  const int quads = padded_dim / 4, input_quads = head_dim / 4;
  const int row_step = kThreads / quads, quad_step = kThreads % quads;
  int r = threadIdx.x / quads, quad = threadIdx.x % quads;
  for (int i = threadIdx.x; i < rows * quads; i += kThreads) {
    const bool present = r < valid_rows && quad < input_quads;
    const In* from = present ? src + static_cast<std::int64_t>(r) * head_dim + 4 * quad : src;
    __pipeline_memcpy_async(dst + r * row_bytes + quad * kQuadBytes, from, kQuadBytes,
                            present ? 0 : kQuadBytes);
    r += row_step;
    quad += quad_step;
    if (quad >= quads) {
      quad -= quads;
      ++r;
    }
  }
}

// Shared memory: q, kQRows rows of 2-byte MMA inputs (bf16, or f16 widened from fp8 staged
// after the key buffers); then two key buffers of 128 rows each, in the input format (fp8 stays
// one byte a value until it is read into a fragment). Rows are padded by 16 bytes so that the
// eight rows one fragment load touches fall into different banks.
template <typename In, int kHeadTiles>
__global__ void __launch_bounds__(kThreads)
    tensor_core_scores_kernel(const In* q, const In* keys, const std::int64_t* offsets,
                              ItemBounds items, const float* weights, const float* q_scale,
                              const float* k_scale, int heads, int head_dim, int padded_dim,
                              int tiles_per_block, float* scores) {
  constexpr int kQRows = kHeadTiles * 8;
  extern __shared__ uint4 shared[];
  const int item = blockIdx.y;
  const GuardedRow span = guarded_row(offsets, item, items.total, items.max_length, items.guarded);
  const std::int64_t start = span.start;
  const int length = static_cast<int>(span.length);  // a flawed item: 0, no block works
  const int first = blockIdx.x * tiles_per_block * kTileKeys;
  if (first >= length) return;
  const int tiles = min(tiles_per_block, (length - first + kTileKeys - 1) / kTileKeys);
  const int q_row_bytes = 2 * padded_dim + 16;
  const int key_row_bytes = static_cast<int>(sizeof(In)) * padded_dim + 16;
  auto* q_table = reinterpret_cast<unsigned char*>(shared);
  unsigned char* const key_buffer = q_table + kQRows * q_row_bytes;  // buffer b at b * buffer_bytes
  const int buffer_bytes = kTileKeys * key_row_bytes;
  unsigned char* q_staged = key_buffer + 2 * buffer_bytes;  // fp8 only

  const In* item_q = q + static_cast<std::int64_t>(item) * heads * head_dim;
  copy_rows(item_q, kQRows, heads, head_dim, padded_dim, kBf16<In> ? q_row_bytes : padded_dim,
            kBf16<In> ? q_table : q_staged);
  const In* item_keys = keys + (start + first) * head_dim;
  copy_rows(item_keys, kTileKeys, length - first, head_dim, padded_dim, key_row_bytes, key_buffer);
  __pipeline_commit();

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, c = lane & 3;
  const float scale = (q_scale ? q_scale[item] : 1.0f) * (k_scale ? k_scale[item] : 1.0f);
  const float* item_weights = weights + static_cast<std::int64_t>(item) * heads;
  for (int t = 0; t < tiles; ++t) {
    const int tile = first + t * kTileKeys;
    if (t + 1 < tiles) {  // the next tile streams in while this one is multiplied
      copy_rows(item_keys + static_cast<std::int64_t>(t + 1) * kTileKeys * head_dim, kTileKeys,
                length - tile - kTileKeys, head_dim, padded_dim, key_row_bytes,
                key_buffer + ((t + 1) & 1) * buffer_bytes);
    }
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    if constexpr (!kBf16<In>) {
      if (t == 0) {  // q, widened once: 4 e4m3 (4 bytes) -> 4 halves (8 bytes)
        for (int i = threadIdx.x; i < kQRows * padded_dim / 4; i += kThreads) {
          const int r = i / (padded_dim / 4), quad = i % (padded_dim / 4);
          const auto raw =
              *reinterpret_cast<const std::uint32_t*>(q_staged + r * padded_dim + 4 * quad);
          *reinterpret_cast<uint2*>(q_table + r * q_row_bytes + 8 * quad) =
              make_uint2(two_e4m3_as_f16(raw & 0xffff), two_e4m3_as_f16(raw >> 16));
        }
        __syncthreads();
      }
    }

    // Lane (g, c) = (lane / 4, lane % 4) holds, per m16n8k16 fragment, keys g and g + 8 of a row
    // tile, heads 2c and 2c + 1 of a head tile, and reads j = 2c, 2c + 1, 2c + 8, 2c + 9 of a step.
    const unsigned char* key_rows =
        key_buffer + (t & 1) * buffer_bytes + (warp * 32 + g) * key_row_bytes;
    const unsigned char* q_rows = q_table + g * q_row_bytes;
    float acc[2][kHeadTiles][4];
#pragma unroll
    for (int m = 0; m < 2; ++m) {
#pragma unroll
      for (int n = 0; n < kHeadTiles; ++n) {
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[m][n][e] = 0.0f;
      }
    }
    for (int j = 2 * c; j < padded_dim; j += kStep) {  // step (j - 2c) / 16, ascending
      std::uint32_t a[2][4];
#pragma unroll
      for (int m = 0; m < 2; ++m) {
        const unsigned char* k0 = key_rows + m * 16 * key_row_bytes;
        a[m][0] = operand<In>(k0, j);
        a[m][1] = operand<In>(k0 + 8 * key_row_bytes, j);
        a[m][2] = operand<In>(k0, j + 8);
        a[m][3] = operand<In>(k0 + 8 * key_row_bytes, j + 8);
      }
#pragma unroll
      for (int n = 0; n < kHeadTiles; ++n) {
        const unsigned char* q0 = q_rows + n * 8 * q_row_bytes;
        const auto b0 = *reinterpret_cast<const std::uint32_t*>(q0 + 2 * j);
        const auto b1 = *reinterpret_cast<const std::uint32_t*>(q0 + 2 * j + 16);
#pragma unroll
        for (int m = 0; m < 2; ++m)
          tensor_core::mma<kBf16<In> ? DType::bf16 : DType::f16>(acc[m][n], a[m], b0, b1);
      }
    }

    // The head sum in the order tensor_core_head_sum (invariant_indexer_order.h) fixes: this
    // lane's partial over its heads 8n + 2c + e (n, then e, ascending) for each of its four keys,
    // then the quad's four partials c = 0..3 in order; every lane of the quad forms all four sums
    // alike and stores key (m, r) = (c / 2, c % 2).
    float partial[2][2];  // [m][r]: key warp * 32 + 16 m + g + 8 r
#pragma unroll
    for (int m = 0; m < 2; ++m) partial[m][0] = partial[m][1] = 0.0f;
#pragma unroll
    for (int n = 0; n < kHeadTiles; ++n) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int h = n * 8 + 2 * c + e;
        if (h >= heads) continue;  // the zero columns that pad 4 heads to a tile of 8
        const float w = item_weights[h];
#pragma unroll
        for (int m = 0; m < 2; ++m) {
          partial[m][0] = __fadd_rn(partial[m][0], head_part(acc[m][n][e], scale, w));
          partial[m][1] = __fadd_rn(partial[m][1], head_part(acc[m][n][e + 2], scale, w));
        }
      }
    }
    float mine = 0.0f;
#pragma unroll
    for (int m = 0; m < 2; ++m) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        float score = 0.0f;
#pragma unroll
        for (int from = 0; from < 4; ++from) {
          score = __fadd_rn(score, __shfl_sync(0xffffffffu, partial[m][r], (lane & ~3) | from));
        }
        if (c == 2 * m + r) mine = score;
      }
    }
    const int key = warp * 32 + (c >> 1) * 16 + g + 8 * (c & 1);
    if (tile + key < length) scores[start + tile + key] = mine;
    __syncthreads();  // this buffer is refilled by the next iteration's copy
  }
}

template <typename In, int kHeadTiles>
Status launch(const IndexerProblem& p, cudaStream_t stream) {
  constexpr int kQRows = kHeadTiles * 8;
  const int padded_dim = static_cast<int>((p.head_dim + kStep - 1) / kStep * kStep);
  const std::size_t q_bytes = std::size_t{kQRows} * (2 * padded_dim + 16);
  const std::size_t keys_bytes = 2 * std::size_t{kTileKeys} * (sizeof(In) * padded_dim + 16);
  const std::size_t staged_bytes = kBf16<In> ? 0 : std::size_t{kQRows} * padded_dim;
  const std::size_t smem = q_bytes + keys_bytes + staged_bytes;
  auto* kernel = tensor_core_scores_kernel<In, kHeadTiles>;
  const Status allowed = allow_dynamic_shared_memory(kernel, smem);
  if (allowed != Status::ok) return allowed;
  // As many tiles per block as still leave two waves of blocks (which tiles share a block
  // changes no bit: every key's arithmetic is its own).
  const int resident = resident_blocks(reinterpret_cast<const void*>(kernel), kThreads, smem);
  if (resident < 1) return cuda_failure(cudaGetLastError());
  const std::int64_t tiles = (p.max_length + kTileKeys - 1) / kTileKeys;
  int tiles_per_block = kMostTilesPerBlock;
  while (tiles_per_block > 1 &&
         p.items * ((tiles + tiles_per_block - 1) / tiles_per_block) < 2 * resident) {
    tiles_per_block /= 2;
  }
  const dim3 grid(static_cast<unsigned>((tiles + tiles_per_block - 1) / tiles_per_block),
                  static_cast<unsigned>(p.items));
  kernel<<<grid, kThreads, smem, stream>>>(
      static_cast<const In*>(p.q), static_cast<const In*>(p.keys), p.offsets, item_bounds(p),
      p.weights, p.q_scale, p.k_scale, static_cast<int>(p.heads), static_cast<int>(p.head_dim),
      padded_dim, tiles_per_block, p.scores);
  return launch_status();
}

template <typename In>
Status launch_for_heads(const IndexerProblem& p, cudaStream_t stream) {
  switch (p.heads) {
    case 4:
    case 8: return launch<In, 1>(p, stream);
    case 16: return launch<In, 2>(p, stream);
    case 32: return launch<In, 4>(p, stream);
    case 64: return launch<In, 8>(p, stream);
  }
  return Status::invalid_argument;
}

}  // namespace

Status tensor_core_scores_cuda(const IndexerProblem& p, cudaStream_t stream) {
  return p.input == IndexerInput::bf16 ? launch_for_heads<__nv_bfloat16>(p, stream)
                                       : launch_for_heads<Fp8>(p, stream);
}

}  // namespace samebits::kernels
