// Which rows the tensor-core attention's block number `linear` holds: launch order only, never
// what a row computes, so a pure function of the launch's sizes (tested on the CPU).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define SAMEBITS_ORDER_HD __host__ __device__ __forceinline__
#else
#define SAMEBITS_ORDER_HD inline
#endif

namespace samebits::kernels::attention_launch {

// A block's (sequence, head block) pair and query tile.
struct BlockPlace {
  std::int64_t b, head_block, tile;
};

// Blocks are numbered in launch order (x fastest). With `section` <= 0, by pair, the last
// (longest causal) query tile of each pair first. With `section` > 0, by sections of `section`
// pairs whose keys and values fit in L2 together, and inside a section tile by tile from the
// last to the first: the launch ends on the shortest blocks, so no long one starts late. The
// section with fewer pairs (if any) runs first, so the last one is full.
SAMEBITS_ORDER_HD BlockPlace block_place(std::int64_t linear, std::int64_t q_tiles,
                                         std::int64_t head_blocks, std::int64_t sequences,
                                         std::int64_t section) {
  if (section <= 0) {
    const std::int64_t pair = linear / q_tiles;
    return {pair / head_blocks, pair % head_blocks, q_tiles - 1 - linear % q_tiles};
  }
  const std::int64_t pairs = head_blocks * sequences;
  const std::int64_t from_end = pairs * q_tiles - 1 - linear;
  const std::int64_t s = from_end / (section * q_tiles);
  const std::int64_t left = pairs - s * section;
  const std::int64_t size = left < section ? left : section;  // pairs in section s
  const std::int64_t r = from_end - s * section * q_tiles;
  const std::int64_t pair = s * section + r % size;
  return {pair / head_blocks, pair % head_blocks, r / size};
}

// A persistent launch (attention_warpgroups.cu): block `block` of `blocks` takes, in its round r,
// block number r * blocks + lane of the `total` a plain launch would have, lane = block in even
// rounds and blocks - 1 - block in odd ones, so that no block takes the first (a causal
// launch's longest) of every round; -1 where that number is past the end. Every number is taken
// once.
SAMEBITS_ORDER_HD std::int64_t persistent_turn(std::int64_t block, std::int64_t blocks,
                                               std::int64_t round, std::int64_t total) {
  const std::int64_t lane = round % 2 == 0 ? block : blocks - 1 - block;
  const std::int64_t linear = round * blocks + lane;
  return linear < total ? linear : -1;
}

}  // namespace samebits::kernels::attention_launch
