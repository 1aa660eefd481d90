// How the tensor-core attention lays out a block: its warps and query rows, its shared-memory
// tiles, which rows and keys it holds, and the copies that fill its tiles
// (attention_tensor_cores.cu; the K and V copies are tile_producer.cuh's).
#pragma once

#include <cstdint>

#include "kernels/attention/attention_layout.h"
#include "kernels/attention/invariant_attention.h"
#include "kernels/attention/invariant_attention_order.h"
#include "kernels/attention/launch_order.h"
#include "kernels/attention/tensor_core_rows.cuh"
#include "kernels/common/mma_instructions.cuh"

#ifndef SAMEBITS_ATTENTION_WARPS
#define SAMEBITS_ATTENTION_WARPS 4
#endif

namespace samebits::kernels::tensor_core {

// A block: kWarps warps, in one of two shapes. Prefill (MT = 2, CG = 1): each warp its own two
// m16 tiles of query rows (each K and V fragment read from shared memory feeds two MMAs), 128
// rows. Decode (MT = 1, CG = 4): one m16 tile of 16 rows shared by the four warps, each scoring a
// quarter of a tile's keys (decode_tile_exchange.cuh assembles the rows' state) and computing P V
// for a quarter of the columns, so that a tile's serial work is split where few rows leave the
// GPU waiting on it. Neither changes a row's bits: each value is computed by the same
// instructions on the same operands; the shape only spreads the work.
constexpr int kWarps = SAMEBITS_ATTENTION_WARPS;
constexpr int kThreads = kWarps * 32;
template <int MT, int CG>
constexpr int kRows = CG == 1 ? 16 * MT* kWarps : 16 * MT;
constexpr int kKeys = static_cast<int>(order::kKeyTile);
static_assert(kKeys == 64, "the P fragments below take 64-key tiles");
static_assert(order::kSplitKeys % order::kKeyTile == 0, "tiles never cross a split");

// Shared memory, in 16-byte chunks: a [rows][D] tile keeps chunk c of row r at c ^ (r & 7), so the
// eight rows one ldmatrix reads at one chunk fall in eight different bank groups. Then K and V,
// kStages stages each (3 for decode blocks, which wait on memory; 2 for prefill, to keep two
// blocks per SM), and the merged partial of earlier splits (each thread's own floats).
// A tile shape (this, or the wgmma kernel's WarpgroupTiles) gives the Loader its rows, threads,
// chunks per row and the 16-byte chunk offsets of the query tile and of a K or V stage.
template <int D, int MT, int CG>
struct Tiles {
  static constexpr int kChunks = D / 8;
  static constexpr int kStages = MT == 1 ? 3 : 2;
  static constexpr int kRows = tensor_core::kRows<MT, CG>, kThreads = tensor_core::kThreads;
  static constexpr int kQ = kRows * kChunks, kKV = kKeys * kChunks;
  static constexpr int kTileBytes = (kQ + 2 * kStages * kKV) * 16;
  // The merged partial of earlier splits: a thread's accumulators (MT * D / 2 floats) and its
  // rows' m and l, needed only when a block's keys cross a split border.
  static constexpr int kRunBytes = (MT * (D / 2) / CG + 4 * MT) * kThreads * 4;
  __device__ static int q_chunk(int r, int c) { return swizzled(r, c, kChunks); }
  __device__ static int kv_chunk(int r, int c) { return swizzled(r, c, kChunks); }
};

// Row k of a thread is row_of(warp, lane, k) of its block.
template <int MT, int CG>
__device__ __forceinline__ int row_of(int warp, int lane, int k) {
  return (CG == 1 ? warp * 16 * MT : 0) + (k / 2) * 16 + lane / 4 + 8 * (k % 2);
}

// Which rows a block holds: `pack` query heads of one KV group per token (so the group shares
// each K and V tile), kRows / pack consecutive tokens of one sequence; and the keys it visits,
// [begin, end): one split (number `split`) in split mode, else all its rows see. Computed from
// the block's place in the launch's grid alone, so the epilogue may recompute it rather than
// keep it in registers through the loop.
struct BlockRows {
  std::int64_t b, first, q_len, head0, g, begin, end, split;
  int pack;
  __device__ std::int64_t token(int r) const { return first + r / pack; }
  __device__ std::int64_t head(int r) const { return head0 + r % pack; }
};

// A block of the launch's grid: its coordinates and the grid's size. A persistent launch's block
// stands for several of these in turn (attention_warpgroups.cu); any other block is its own.
struct GridBlock {
  std::int64_t x, y, z, gx, gy, gz;
};
__device__ inline GridBlock this_block() {
  return {blockIdx.x, blockIdx.y, blockIdx.z, gridDim.x, gridDim.y, gridDim.z};
}
// Block `linear` of a grid of gx * gy * gz blocks, x fastest.
__device__ inline GridBlock grid_block(std::int64_t linear, std::int64_t gx, std::int64_t gy,
                                       std::int64_t gz) {
  return {linear % gx, linear / gx % gy, linear / (gx * gy), gx, gy, gz};
}

// Launch order only (launch_order.h): the plain order in split mode or with `section` = 0.
__device__ inline attention_launch::BlockPlace block_place(std::int64_t q_tiles,
                                                           std::int64_t splits,
                                                           std::int64_t section,
                                                           const GridBlock& at) {
  if (splits) return {at.z, at.y, at.x / splits};
  const std::int64_t linear = (at.z * at.gy + at.y) * at.gx + at.x;
  return attention_launch::block_place(linear, q_tiles, at.gy, at.gz, section);
}

template <int Rows>
__device__ BlockRows block_rows_of(const AttentionProblem& p, int pack, std::int64_t q_tiles,
                                   std::int64_t splits, std::int64_t section, const GridBlock& at) {
  BlockRows rows;
  const attention_launch::BlockPlace place = block_place(q_tiles, splits, section, at);
  rows.b = place.b;
  rows.pack = pack;
  rows.first = place.tile * (Rows / pack);
  rows.q_len = layout::q_len(p, rows.b);
  rows.head0 = place.head_block * pack;
  rows.g = rows.head0 / (p.heads / p.kv_heads);
  rows.begin = 0;
  rows.end = 0;
  rows.split = splits ? at.x % splits : 0;
  if (rows.first >= rows.q_len) return rows;
  const std::int64_t last = min(rows.first + Rows / pack, rows.q_len) - 1;
  rows.end = layout::visible_keys(p, rows.b, last);
  if (splits) {
    rows.begin = rows.split * order::kTensorCoreSplitKeys;
    rows.end = min(rows.end, rows.begin + order::kTensorCoreSplitKeys);
  }
  return rows;
}
template <int MT, int CG>
__device__ BlockRows block_rows(const AttentionProblem& p, int pack, std::int64_t q_tiles,
                                std::int64_t splits) {
  return block_rows_of<kRows<MT, CG>>(p, pack, q_tiles, splits, 0, this_block());
}

// What the tile copies need, in shared memory (read once per tile, not held in registers).
struct TileSource {
  std::int64_t b, begin, end, k_base, v_base, k_head, v_head;
};

template <class L>
struct Loader {
  static constexpr int C = L::kChunks;
  const AttentionProblem& p;  // the kernel's __grid_constant__ parameter: no copy
  const TileSource& src;      // shared memory
  std::uint32_t q_s, k_s, v_s;
  int tid;

  // Query rows into shared memory (missing rows as zeros). Row r is token first + r / pack of
  // head head0 + r % pack. A thread copies chunk c = tid % C of rows r0 + kGap i: where pack
  // divides kGap those rows share a head and their tokens step by kGap / pack, so one address
  // is worked out and then stepped; else each row's is (the same copies). Row by row, a turn's
  // queries cost the wgmma prefill's copying warps as many instructions as eight key tiles.
  __device__ void queries(const BlockRows& rows) const {
    const auto* q = static_cast<const std::uint16_t*>(p.q);
    constexpr int kGap = L::kThreads / C;
    if constexpr (L::kThreads % C == 0 && kGap % 8 == 0) {
      if (kGap % rows.pack == 0) {
        const int r0 = tid / C, c = tid % C, step = kGap / rows.pack;
        const std::int64_t t0 = rows.token(r0);
        const std::uint16_t* at =
            q + layout::row_offset(p, rows.b, t0, p.q_seq_stride, p.q_token_stride) +
            rows.head(r0) * p.q_head_stride + c * 8;
        const std::int64_t at_step = step * p.q_token_stride;
        const std::uint32_t dst = q_s + L::q_chunk(r0, c) * 16;
        const std::uint32_t dst_step = (L::q_chunk(kGap, 0) - L::q_chunk(0, 0)) * 16;
#pragma unroll
        for (int i = 0; i < L::kRows / kGap; ++i) {
          const bool valid = t0 + i * step < rows.q_len;
          copy16(dst + i * dst_step, valid ? at + i * at_step : q, valid);
        }
        return;
      }
    }
#pragma unroll 4
    for (int idx = tid; idx < L::kRows * C; idx += L::kThreads) {
      const int r = idx / C, c = idx % C;
      const std::int64_t i = rows.token(r);
      const bool valid = i < rows.q_len;
      const std::int64_t at =
          valid ? layout::row_offset(p, rows.b, i, p.q_seq_stride, p.q_token_stride) +
                      rows.head(r) * p.q_head_stride + c * 8
                : 0;
      copy16(q_s + L::q_chunk(r, c) * 16, q + at, valid);
    }
  }
};

}  // namespace samebits::kernels::tensor_core
