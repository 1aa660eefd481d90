// The K and V tile copies of every tensor-core forward block, with each thread's addresses set
// up once per block: a tile then costs a thread one pointer step and two copies per row.
#pragma once

#include <cstdint>

#include "kernels/attention/tensor_core_tiles.cuh"

namespace samebits::kernels::tensor_core {

// A thread copies 16-byte chunk c = tid % C of the rows r0 + kGap * i (r0 = tid / C, i <
// kPerThread) of every tile. kGap is a multiple of 8, so the rows share the swizzle's phase
// (r % 8) and sit a fixed number of bytes apart in either layout (L::kv_chunk).
// Paged caches whose page size is a multiple of kKeys cost one block-table read per tile, which
// a caller may make a tile early (page_of) so that no copy waits on it.
template <class L>
struct TileProducer {
  static constexpr int C = L::kChunks;
  static constexpr int kGap = L::kThreads / C;
  static constexpr int kPerThread = kKeys / kGap;
  static_assert(kGap % 8 == 0 && kKeys % kGap == 0, "a thread's rows share the swizzle's phase");

  const AttentionProblem& p;   // the kernel's __grid_constant__ parameter: no copy
  const std::uint16_t* k;      // the thread's chunk of key `begin + r0` (dense caches), else of
  const std::uint16_t* v;      // its head's token 0 in page 0 (paged caches)
  std::int64_t first, end;     // the thread's first key (begin + r0) and the block's key end
  std::uint32_t k_dst, v_dst;  // its first row's chunk in stage 0
  int r0;

  // Bytes between a thread's rows r and r + kGap in a stage (the same for every r and chunk).
  __device__ static std::uint32_t row_step() {
    return (L::kv_chunk(kGap, 0) - L::kv_chunk(0, 0)) * 16;
  }

  __device__ TileProducer(const AttentionProblem& problem, const TileSource& src, std::uint32_t k_s,
                          std::uint32_t v_s, int tid)
      : p(problem) {
    r0 = tid / C;
    const int c = tid % C;
    first = src.begin + r0;
    end = src.end;
    const auto* k0 = static_cast<const std::uint16_t*>(p.k) + c * 8;
    const auto* v0 = static_cast<const std::uint16_t*>(p.v) + c * 8;
    k = p.block_table ? k0 + src.k_head : k0 + src.k_base + first * p.k_token_stride;
    v = p.block_table ? v0 + src.v_head : v0 + src.v_base + first * p.v_token_stride;
    k_dst = k_s + L::kv_chunk(r0, c) * 16;
    v_dst = v_s + L::kv_chunk(r0, c) * 16;
  }

  // Whether a tile's keys lie in one page (dense caches need no page).
  __device__ bool one_page_per_tile() const { return p.page_size % kKeys == 0; }

  // The block-table entry tile j's keys lie in, for one_page_per_tile() paged caches (else 0).
  // Key positions and page sizes fit 31 bits (checked on the host).
  __device__ std::int32_t page_of(int j, const std::int32_t* table) const {
    if (!table || !one_page_per_tile()) return 0;
    const auto u = static_cast<std::uint32_t>(first - r0 + static_cast<std::int64_t>(j) * kKeys);
    return table[u / static_cast<std::uint32_t>(p.page_size)];
  }

  // Tile j (keys begin + 64 j ...) into stage `stage`; keys at or after `end` as zeros.
  __device__ void tile(int j, int stage, const std::int32_t* table) const {
    tile(j, stage, table, page_of(j, table));
  }
  // The same with tile j's page_of() read earlier.
  __device__ void tile(int j, int stage, const std::int32_t* table, std::int32_t page) const {
    const std::int64_t t0 = first + static_cast<std::int64_t>(j) * kKeys;
    const std::uint32_t at = stage * L::kKV * 16, step = row_step();
    const auto size = static_cast<std::uint32_t>(p.page_size);
    if (table && !one_page_per_tile()) {  // each row's page from the block table
#pragma unroll
      for (int i = 0; i < kPerThread; ++i) {
        const std::int64_t t = t0 + kGap * i;
        const bool valid = t < end;
        std::int64_t ko = 0, vo = 0;
        if (valid) {
          const auto u = static_cast<std::uint32_t>(t);
          const std::int64_t page = table[u / size], slot = u % size;
          ko = page * p.k_page_stride + slot * p.k_token_stride;
          vo = page * p.v_page_stride + slot * p.v_token_stride;
        }
        copy16(k_dst + at + i * step, k + ko, valid);
        copy16(v_dst + at + i * step, v + vo, valid);
      }
      return;
    }
    // The thread's rows are kGap tokens apart: in a dense cache, or inside one page when the page
    // size is a multiple of kKeys (tiles start at multiples of kKeys): one lookup per tile.
    const std::uint16_t *kj = k + j * (kKeys * p.k_token_stride),
                        *vj = v + j * (kKeys * p.v_token_stride);
    if (table) {
      const auto u = static_cast<std::uint32_t>(t0 - r0);  // the tile's first key
      const std::int64_t slot = u % size + r0;
      kj = k + page * p.k_page_stride + slot * p.k_token_stride;
      vj = v + page * p.v_page_stride + slot * p.v_token_stride;
    }
    const std::int64_t k_step = kGap * p.k_token_stride, v_step = kGap * p.v_token_stride;
    if (t0 - r0 + kKeys <= end) {  // every key of the tile: no key to check
#pragma unroll
      for (int i = 0; i < kPerThread; ++i) {
        copy16(k_dst + at + i * step, kj + i * k_step, true);
        copy16(v_dst + at + i * step, vj + i * v_step, true);
      }
      return;
    }
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      const bool valid = t0 + kGap * i < end;
      copy16(k_dst + at + i * step, valid ? kj + i * k_step : k, valid);
      copy16(v_dst + at + i * step, valid ? vj + i * v_step : v, valid);
    }
  }
};

}  // namespace samebits::kernels::tensor_core
