// The turns of the wgmma prefill's persistent blocks: which block of the work grid a block takes
// next, and the slots in which one thread hands each turn to the others.
#pragma once

#include <cstdint>

#include "kernels/attention/invariant_attention.h"
#include "kernels/attention/launch_order.h"
#include "kernels/attention/tensor_core_tiles.cuh"

namespace samebits::kernels::tensor_core {

// The grid a persistent launch stands for: gx * gy * gz blocks (launch order, x fastest).
struct WorkGrid {
  std::int64_t gx, gy, gz;
};

// A block's turn: a block of the work grid (launch order; -1 once none is left) and its rows.
struct Turn {
  std::int64_t linear;
  BlockRows rows;
};

// The blocks of the work grid a persistent block takes, in turn (only blocks with rows). With
// p.turn_counter (zeroed by the caller) the next in launch order as each block frees, as a plain
// launch's blocks start; else a static order (launch_order.h's persistent_turn). Which block
// computes which rows changes no bits. One thread asks, and hands the turn on. Rows: a block's
// query rows.
template <int Rows>
struct Turns {
  const AttentionProblem& p;
  int pack;
  std::int64_t q_tiles, splits, section;
  WorkGrid work;
  std::int64_t round = 0;  // (the static order's)

  __device__ Turn next() {
    const std::int64_t total = work.gx * work.gy * work.gz;
    for (;;) {
      Turn turn;
      if (p.turn_counter) {
        turn.linear = static_cast<std::int64_t>(atomicAdd(p.turn_counter, 1ull));
        if (turn.linear >= total) return Turn{-1, {}};
      } else {
        if (round * gridDim.x >= total) return Turn{-1, {}};
        turn.linear = attention_launch::persistent_turn(blockIdx.x, gridDim.x, round++, total);
        if (turn.linear < 0) continue;
      }
      turn.rows = block_rows_of<Rows>(p, pack, q_tiles, splits, section,
                                      grid_block(turn.linear, work.gx, work.gy, work.gz));
      if (turn.rows.first < turn.rows.q_len) return turn;
    }
  }
};

// A block's turns, rows included (their integer work done once, by one thread), from the copying
// warpgroup's first thread to the other copying threads (two slots, one named barrier a turn) and
// to the computing warps (a ring of kTurnSlots, a full and an empty barrier per slot: a slot is
// given back once its turn's outputs are written).
constexpr int kTurnSlots = 4;
struct TurnSlots {
  Turn copiers[2], computing[kTurnSlots];
  std::uint64_t full[kTurnSlots], empty[kTurnSlots];
};

}  // namespace samebits::kernels::tensor_core
