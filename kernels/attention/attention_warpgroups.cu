// The tensor-core attention's prefill on Hopper's warpgroup MMA: blocks of a copying warpgroup
// and two computing ones (64 query rows each) over 64-key tiles, in the tensor-core order, one
// per SM taking turns over the work (persistent).
#include <algorithm>
#include <cstdint>
#include <limits>

#include "kernels/attention/attention_warpgroups.h"
#include "kernels/attention/tensor_core_tiles.cuh"
#include "kernels/attention/tile_producer.cuh"
#include "kernels/attention/warpgroup_turns.cuh"
#include "kernels/common/cuda_status.h"
#include "kernels/common/occupancy.h"
#include "kernels/common/shared_memory.h"
#include "kernels/common/stage_barriers.cuh"
#include "kernels/common/warpgroup_instructions.cuh"

namespace samebits::kernels {
namespace {

using namespace tensor_core;  // NOLINT(build/namespaces): the tensor-core kernels' building blocks

// A block is three warpgroups: the first copies (queries, then K and V tiles into stages), the
// other two compute 64 query rows each. They meet only at per-stage barriers: a stage is `full`
// once its copies have landed, `empty` once every computing warp's MMAs have read it, so the two
// computing warpgroups run apart (one's softmax beside the other's MMAs) and issue no copies.
// A block takes turns over the 128-row blocks of a plain launch (one per SM as
// attention_warpgroups_persistent says; else the plain grid, a turn each), and its copying
// warpgroup loads a turn's queries and first tiles while the computing warpgroups end the last
// one (`q_empty` says when their MMAs no longer read its queries).
constexpr int kCopyThreads = 128;
constexpr int kMathThreads = 256;
constexpr int kBlockThreads = kCopyThreads + kMathThreads;
constexpr int kGroupRows = 128;
static_assert(kGroupRows == kRows<2, 1>, "the prefill blocks' rows, whichever MMA computes them");
// Registers per thread after the warpgroups trade, within the 168 per thread a launch of 384 has
// (128 * 56 + 256 * 224 = 384 * 168): the copies need 56 without spilling (a turn's addresses
// and the first thread's turn search; 48 spilled 24 bytes), the computing warps 224.
constexpr unsigned kCopyRegisters = 56, kMathRegisters = 224;

// Shared memory: the query tile [128][D], then kStages K and V stages [64][D], each in column
// blocks of 64 elements (a block holds its rows' 128 bytes, chunk c of row r at c ^ (r & 7)):
// the 128-byte swizzle wgmma reads. Four stages, the merged partial of earlier splits in the border
// workspace to make room: three made the math warps retry stage waits ~14 times a tile (H200).
template <int D>
struct WarpgroupTiles {
  static constexpr int kChunks = D / 8;
  static constexpr int kStages = 4;
  static constexpr int kRows = kGroupRows, kThreads = kCopyThreads;  // the Loader's threads
  static constexpr int kQ = kRows * kChunks, kKV = kKeys * kChunks;  // 16-byte chunks
  static constexpr int kTileBytes = (kQ + 2 * kStages * kKV) * 16;
  static constexpr int kRunBytes = (D / 2 + 4) * kMathThreads * 4;
  __device__ static int block_chunk(int rows, int r, int c) {
    return (c / 8) * rows * 8 + r * 8 + ((c % 8) ^ (r % 8));
  }
  __device__ static int q_chunk(int r, int c) { return block_chunk(kRows, r, c); }
  __device__ static int kv_chunk(int r, int c) { return block_chunk(kKeys, r, c); }
};
static_assert(WarpgroupTiles<128>::kRunBytes == Tiles<128, 2, 1>::kRunBytes &&
                  WarpgroupTiles<64>::kRunBytes == Tiles<64, 2, 1>::kRunBytes,
              "the border workspace is sized for either prefill block");
constexpr int kBlockBytes = 128;  // a column block's row
constexpr int kAlign = 1024;      // the swizzle's atom: 8 rows of 128 bytes
static_assert(WarpgroupTiles<128>::kTileBytes + kAlign + kMathThreads / 32 * out_stage::kWarpBytes +
                      2048 <=
                  227 * 1024,
              "a block's shared memory (with the out stages and 1.6 KB of barriers and turn slots) "
              "fits Hopper's 227 KB");

#if defined(SAMEBITS_WGMMA_DEVICE)
// Where a block's keys and values are, for its copies.
__device__ inline TileSource source_of(const AttentionProblem& p, const BlockRows& rows) {
  TileSource src;
  const std::int64_t kv_base = p.kv_offsets ? p.kv_offsets[rows.b] : 0;
  src.b = rows.b;
  src.begin = rows.begin;
  src.end = rows.end;
  src.k_head = rows.g * p.k_head_stride;
  src.v_head = rows.g * p.v_head_stride;
  src.k_base = rows.b * p.k_page_stride + kv_base * p.k_token_stride + src.k_head;
  src.v_base = rows.b * p.v_page_stride + kv_base * p.v_token_stride + src.v_head;
  return src;
}

__device__ inline int tiles_of(const BlockRows& rows) {
  return rows.begin < rows.end ? static_cast<int>((rows.end - rows.begin + kKeys - 1) / kKeys) : 0;
}

// Where tile t of a block's turns is: stage t % S of the K/V ring, whose barriers are in phase
// (t / S) & 1 while it holds the tile. Stepped from tile to tile, not divided each time.
template <int S>
struct Slot {
  int stage;
  unsigned phase;
  __device__ static Slot of(int t) { return {t % S, static_cast<unsigned>(t / S) & 1u}; }
  __device__ Slot next() const {
    return stage + 1 == S ? Slot{0, phase ^ 1u} : Slot{stage + 1, phase};
  }
};

// The copying warpgroup, over the block's turns: a turn's queries with its tile 0 (once the
// computing warps have issued their last MMA on the previous turn's queries: `q_empty`), then its
// tile j into stage (t + j) % S once the stage's previous tile has been read, t the tiles of the
// block's earlier turns. Each thread's copies of a tile arrive on the stage's `full` barrier when
// they land, so the copying threads never wait on their own copies, and the next turn's first
// tiles stream in while the computing warps write the last turn's outputs.
template <class L>
__device__ void copy_tiles(const AttentionProblem& p, int pack, std::int64_t q_tiles,
                           std::int64_t splits, std::int64_t section, const WorkGrid& work,
                           std::uint32_t q_s, std::uint32_t k_s, std::uint32_t v_s, int tid,
                           std::uint32_t full, std::uint32_t empty, std::uint32_t q_empty,
                           TurnSlots& slots) {
  constexpr int S = L::kStages;
  Turns<kGroupRows> turns{p, pack, q_tiles, splits, section, work};
  const auto slot_full = static_cast<std::uint32_t>(__cvta_generic_to_shared(slots.full));
  const auto slot_empty = static_cast<std::uint32_t>(__cvta_generic_to_shared(slots.empty));
  int t = 0, loads = 0;  // tiles and query tiles copied so far
  Slot<S> at{0, 0u};     // tile t's
  for (int k = 0;; ++k) {
    if (tid == 0) {  // the next turn, for the copying threads and the computing warps
      const Turn next = turns.next();
      const int r = k % kTurnSlots;
      slots.copiers[k % 2] = next;
      if (k >= kTurnSlots) warpgroup::barrier_wait(slot_empty + r * 8, (k / kTurnSlots + 1) & 1);
      slots.computing[r] = next;
      warpgroup::barrier_arrive(slot_full + r * 8);
    }
    asm volatile("bar.sync 1, %0;\n" ::"n"(kCopyThreads) : "memory");
    if (slots.copiers[k % 2].linear < 0) break;
    const BlockRows& rows = slots.copiers[k % 2].rows;  // (shared memory, for this turn)
    const int tiles = tiles_of(rows);
    if (tiles == 0) continue;
    const TileSource src = source_of(p, rows);
    const TileProducer<L> producer(p, src, k_s, v_s, tid);
    const std::int32_t* table =
        p.block_table ? p.block_table + src.b * p.block_table_stride : nullptr;
    // Tile 0 with the queries, then the rest (the rows no longer needed).
    if (t >= S) warpgroup::barrier_wait(empty + at.stage * 8, at.phase ^ 1u);
    if (loads > 0) warpgroup::barrier_wait(q_empty, (loads - 1) & 1);
    Loader<L>{p, src, q_s, k_s, v_s, tid}.queries(rows);
    ++loads;
    for (int j = 0; j < tiles; ++j, ++t, at = at.next()) {
      if (j > 0 && t >= S) warpgroup::barrier_wait(empty + at.stage * 8, at.phase ^ 1u);
      producer.tile(j, at.stage, table);
      warpgroup::barrier_arrive_on_copies(full + at.stage * 8);
    }
  }
  asm volatile("cp.async.wait_all;\n" ::: "memory");
}
#endif

// Staged: out's rows 16-byte aligned, stored through the warps' stages (out_stage.cuh); a template
// parameter, since a kernel holding both stores keeps its tile loop's descriptors in vector
// registers (bench/sass_loop.py: 60 R2UR a loop, 6 % slower at 4x4096).
template <DType T, int D, bool Staged>
__global__ void __launch_bounds__(kBlockThreads, 1)
    attention_warpgroups(const __grid_constant__ AttentionProblem p, int pack, std::int64_t q_tiles,
                         std::int64_t splits, std::int64_t section, WorkGrid work) {
#if defined(SAMEBITS_WGMMA_DEVICE)
  using L = WarpgroupTiles<D>;
  constexpr int NB = D / 8;  // the thread's accumulator blocks of 8 columns
  constexpr int S = L::kStages;
  constexpr std::int64_t kSplit = order::kTensorCoreSplitKeys;
  extern __shared__ __align__(16) std::uint8_t smem_raw[];
  __shared__ __align__(8) std::uint64_t stage_full[S], stage_empty[S], queries_empty;
  __shared__ TurnSlots turn_slots;
  // The computing warps' stages of out rows (out_stage.cuh), one per warp (only the staged kernel
  // keeps them: 18 KB).
  __shared__ __align__(16) std::uint8_t out_stages[kMathThreads / 32 * out_stage::kWarpBytes];
  const int tid = threadIdx.x;
  const auto full = static_cast<std::uint32_t>(__cvta_generic_to_shared(stage_full));
  const auto empty = static_cast<std::uint32_t>(__cvta_generic_to_shared(stage_empty));
  const auto q_empty = static_cast<std::uint32_t>(__cvta_generic_to_shared(&queries_empty));
  if (tid == 0) {
    warpgroup::init_stages(full, empty, S, kCopyThreads, 8);  // 8: the computing warps, idle too
    warpgroup::barrier_init(q_empty, 8);
    for (int r = 0; r < kTurnSlots; ++r) {
      warpgroup::barrier_init(
          static_cast<std::uint32_t>(__cvta_generic_to_shared(&turn_slots.full[r])), 1);
      warpgroup::barrier_init(
          static_cast<std::uint32_t>(__cvta_generic_to_shared(&turn_slots.empty[r])), 8);
    }
  }
  __syncthreads();

  const auto raw = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem_raw));
  const std::uint32_t base = (raw + kAlign - 1) & ~static_cast<std::uint32_t>(kAlign - 1);
  const std::uint32_t q_s = base, k_s = base + L::kQ * 16, v_s = base + (L::kQ + S * L::kKV) * 16;

  if (tid < kCopyThreads) {
    warpgroup::registers_release<kCopyRegisters>();
    copy_tiles<L>(p, pack, q_tiles, splits, section, work, q_s, k_s, v_s, tid, full, empty, q_empty,
                  turn_slots);
    return;
  }
  warpgroup::registers_take<kMathRegisters>();
  const int mtid = tid - kCopyThreads, warp = mtid / 32, lane = mtid % 32;
  // Broadcast from lane 0, so that ptxas sees the warpgroup's branches around wgmma as uniform
  // (else it serializes the MMAs).
  const int group = __shfl_sync(kFull, warp / 4, 0);

  // The merged partial of a row's earlier splits: the block's slice of the border workspace.
  float* run_s =
      p.border_workspace ? p.border_workspace + blockIdx.x * (L::kRunBytes / 4) : nullptr;
  const float scale_log2 = p.scale * order::kLog2e;
  const warpgroup::Descriptor q_desc =
      warpgroup::descriptor_of(q_s + group * 64 * kBlockBytes, 16, 1024);
  const warpgroup::Descriptor k_desc = warpgroup::descriptor_of(k_s, 16, 1024);
  const warpgroup::Descriptor v_desc = warpgroup::descriptor_of(v_s, kKeys * kBlockBytes, 1024);
  auto row = [&](int k) { return warp * 16 + lane / 4 + 8 * k; };

  int t = 0;  // tiles of the block's earlier turns: tile j of this one is the block's t + j
  auto tile_in = [&](Slot<S> at) {  // its tile has landed; then visible to wgmma (cp.async's)
    warpgroup::barrier_wait(full + at.stage * 8, at.phase);
    warpgroup::fence_async_shared();
  };
  auto tile_read = [&](Slot<S> at) {  // the warp's MMAs on its tile have completed
    __syncwarp();
    if (lane == 0) warpgroup::barrier_arrive(empty + at.stage * 8);
  };
  auto queries_read = [&] {  // the warp's MMAs on the turn's queries have completed
    __syncwarp();
    if (lane == 0) warpgroup::barrier_arrive(q_empty);
  };

  const auto slot_full = static_cast<std::uint32_t>(__cvta_generic_to_shared(turn_slots.full));
  const auto slot_empty = static_cast<std::uint32_t>(__cvta_generic_to_shared(turn_slots.empty));
  for (int k = 0;; ++k) {
    const int r = k % kTurnSlots;
    warpgroup::barrier_wait(slot_full + r * 8, (k / kTurnSlots) & 1);
    const Turn& turn = turn_slots.computing[r];  // (shared memory, until the turn's outputs)
    if (turn.linear < 0) break;
    auto turn_done = [&] {  // the turn's slot back to the copying warpgroup's first thread
      __syncwarp();
      if (lane == 0) warpgroup::barrier_arrive(slot_empty + r * 8);
    };
    const BlockRows& rows = turn.rows;
    if (rows.first >= rows.q_len) {
      turn_done();
      continue;
    }
    const int tiles = __shfl_sync(kFull, tiles_of(rows), 0);
    // A warpgroup whose rows are all missing (the second, at a sequence's end) computes nothing
    // but gives each tile back, as the barriers count on.
    if (rows.token(64 * group) >= rows.q_len) {
      Slot<S> at = Slot<S>::of(t);
      for (int j = 0; j < tiles; ++j, at = at.next()) {
        tile_in(at);
        tile_read(at);
      }
      if (tiles > 0) queries_read();
      t += tiles;
      turn_done();
      continue;
    }
    const std::int64_t begin = rows.begin;

    // The thread's rows (fragment rows lane / 4 and + 8 of its warp's 16) and their visible
    // keys past `begin`.
    int n[2];
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      const std::int64_t i = rows.token(row(k));
      const std::int64_t visible = i < rows.q_len ? layout::visible_keys(p, rows.b, i) : 0;
      n[k] = visible > begin ? static_cast<int>(visible - begin) : 0;
    }

    float acc[1][NB][4];
    RowState cur[2];
    auto start_split = [&] {
#pragma unroll
      for (int nb = 0; nb < NB; ++nb)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[0][nb][e] = 0.0f;
      cur[0] = cur[1] = RowState{};
    };
    start_split();
    auto close_if_border = [&](int t0) {
      if (splits || t0 == 0 || t0 % kSplit != 0) return;  // (begin = 0 in whole mode)
      close_split<kMathThreads, 1, NB>(run_s, mtid, acc, cur, n, t0 - static_cast<int>(kSplit));
      start_split();
    };

    // S = Q K^T over tile j: the warpgroup's 64 rows, d in 16-wide steps (a step is a 32-byte
    // move inside a column block, a column block every 4 steps). The first step sets s
    // (mma.sync's from +0 but for the sign of a zero, which the softmax's max makes +0).
    float s[1][8][4];
    auto scores = [&](Slot<S> at) {
      const std::uint32_t k_stage = at.stage * L::kKV * 16;
#pragma unroll
      for (int kc = 0; kc < D / 16; ++kc) {
        const std::uint32_t step = (kc % 4) * 32;
        warpgroup::scores_step<T>(s[0], q_desc.at((kc / 4) * kGroupRows * kBlockBytes + step),
                                  k_desc.at(k_stage + (kc / 4) * kKeys * kBlockBytes + step),
                                  kc > 0);
      }
      warpgroup::commit();
    };
    // acc += P V over tile j: keys in 16-wide steps, all D columns (column blocks kKeys * 128
    // bytes apart).
    auto values = [&](Slot<S> at, const std::uint32_t(&pa)[1][4][4]) {
      const std::uint32_t v_stage = at.stage * L::kKV * 16;
#pragma unroll
      for (int c = 0; c < 4; ++c)
        warpgroup::values_step<T, D>(acc[0], pa[0][c], v_desc.at(v_stage + c * 16 * kBlockBytes),
                                     true);
      warpgroup::commit();
    };

    // Step j issues tile j + 1's scores and tile j's P V together, then runs tile j + 1's
    // softmax while P V is on the tensor cores (P in two register sets: one read by the MMA in
    // flight, one written). The same operations per row as the mma.sync blocks: softmax j,
    // acc * alpha_j, P_j V_j, in tile order.
    float alpha[2];
    bool live[2];
    std::uint32_t pa0[1][4][4], pa1[1][4][4];
    const Slot<S> first = Slot<S>::of(t);
    if (tiles > 0) {
      tile_in(first);
      warpgroup::fence();
      scores(first);
      warpgroup::wait<0>();
      warpgroup::pin(s[0]);
      online_softmax<T, 1>(s, 0, lane, scale_log2, n, cur, alpha, live, pa0);
    }
    // (`here` is tile j's slot; the step returns tile j + 1's)
    auto step = [&](int j, Slot<S> here, const std::uint32_t(&pa_now)[1][4][4],
                    std::uint32_t(&pa_next)[1][4][4]) {
      const Slot<S> there = here.next();
      if (j + 1 < tiles) tile_in(there);
      rescale<1, NB>(acc, alpha);
      warpgroup::pin(acc[0]);
      warpgroup::fence();
      // (past the last tile, tile j's stage again, still held: scores never read; a branch
      // around wgmma would serialize it, and the next stage may be taking the next turn's keys)
      scores(j + 1 < tiles ? there : here);
      values(here, pa_now);
      warpgroup::wait<1>();  // tile j + 1's scores
      warpgroup::pin(s[0]);
      if (j + 1 < tiles) {
        const int t0 = (j + 1) * kKeys;
        if (!splits && t0 % kSplit == 0) {  // a split border: close the split first
          warpgroup::wait<0>();
          warpgroup::pin(acc[0]);
          close_if_border(t0);
        }
        online_softmax<T, 1>(s, t0, lane, scale_log2, n, cur, alpha, live, pa_next);
      }
      warpgroup::wait<0>();
      warpgroup::pin(acc[0]);
      tile_read(here);
      return there;
    };
    Slot<S> at = first;
    for (int j = 0; j < tiles; j += 2) {
      at = step(j, at, pa0, pa1);
      if (j + 1 < tiles) at = step(j + 1, at, pa1, pa0);
    }
    if (tiles > 0) queries_read();  // (the copies of the next turn's queries may start)
    t += tiles;

    const RowEpilogue<BlockRows, 1, NB, Staged> epilogue{
        p,
        rows,
        splits,
        lane,
        0,
        static_cast<std::uint32_t>(__cvta_generic_to_shared(out_stages)) +
            warp * out_stage::kWarpBytes};
    if (splits) {
      epilogue.partials(acc, cur, n, row);
    } else {
      epilogue.template whole<T, kMathThreads>(run_s, mtid, acc, cur, n, row);
    }
    turn_done();
  }
#elif defined(__CUDA_ARCH__)
  __trap();  // launched only where attention_warpgroups_available()
#endif
}

// The (sequence, head block) pairs per section of a causal launch (block_place): as many as
// keep their keys and values within half the L2 cache (at least 1); 0 (the plain order) where
// every block has the same keys or in split mode.
std::int64_t section_pairs(const AttentionProblem& p, int pack, std::int64_t splits) {
  if (!p.causal || splits > 0) return 0;
  int device = 0, l2_bytes = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device) != cudaSuccess)
    return 0;
  const bool ragged = p.kv_offsets != nullptr || p.kv_lengths != nullptr;
  std::int64_t keys = std::max(p.max_q_len, ragged ? p.max_kv_len : p.kv_len);
  if (keys <= 0) keys = 1;
  const std::int64_t pair_bytes = keys * p.head_dim * 2 * 2;  // K and V, 2-byte elements
  const std::int64_t pairs = p.heads / pack * p.sequences;
  return std::clamp<std::int64_t>(l2_bytes / 2 / pair_bytes, 1, std::max<std::int64_t>(pairs, 1));
}

template <DType T, int D>
Status launch(const AttentionProblem& p, int pack, std::int64_t q_tiles, std::int64_t splits,
              bool crosses, cudaStream_t stream) {
  using L = WarpgroupTiles<D>;
  const std::int64_t x = q_tiles * (splits > 0 ? splits : 1);
  const int bytes = L::kTileBytes + kAlign;
  // The opt-in is the device's maximum, set once: setting it to this call's size would race with a
  // launch of a larger size on another host thread (cudaErrorInvalidValue).
  // Out rows through the warps' stages where every row's chunks are 16-byte aligned.
  const bool staged = reinterpret_cast<std::uintptr_t>(p.out) % 16 == 0 &&
                      p.out_seq_stride % 8 == 0 && p.out_token_stride % 8 == 0 &&
                      p.out_head_stride % 8 == 0;
  auto* kernel = staged ? attention_warpgroups<T, D, true> : attention_warpgroups<T, D, false>;
  if (const Status s = allow_dynamic_shared_memory(kernel, bytes); s != Status::ok) return s;
  // Persistent blocks, one per SM (its registers and shared memory), each taking turns over the
  // grid of blocks a plain launch would have; else that grid, a turn each.
  const WorkGrid work{x, p.heads / pack, p.sequences};
  const std::int64_t total = work.gx * work.gy * work.gz;
  std::int64_t blocks = std::min<std::int64_t>(total, std::numeric_limits<int>::max());
  if (p.persistent_blocks > 0) {
    blocks = std::min(blocks, p.persistent_blocks);
  } else if (attention_warpgroups_persistent(p)) {
    // (asked of the driver once per device; else the plain grid: the same bits)
    if (const int sms = multiprocessors(); sms > 0) blocks = std::min<std::int64_t>(blocks, sms);
  }
  if (crosses && (!p.border_workspace || p.border_workspace_floats < blocks * (L::kRunBytes / 4)))
    return Status::workspace_too_small;
  kernel<<<static_cast<unsigned>(blocks), kBlockThreads, bytes, stream>>>(
      p, pack, q_tiles, splits, section_pairs(p, pack, splits), work);
  if (const Status s = launch_status(); s != Status::ok) return s;
  if (splits > 0) launch_split_merge(p, splits, order::kTensorCoreSplitKeys, stream);
  return launch_status();
}

}  // namespace

bool attention_warpgroups_persistent(const AttentionProblem& p) {
  const bool ragged = p.kv_offsets != nullptr || p.kv_lengths != nullptr;
  return (ragged ? p.max_kv_len : p.kv_len) >= 0;
}

bool attention_warpgroups_available() {
#if defined(SAMEBITS_HAVE_SM90A)
  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return false;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess)
    return false;
  return major == 9 && minor == 0;
#else
  return false;
#endif
}

std::int64_t attention_warpgroups_border_floats(const AttentionProblem& p) {
  const std::int64_t blocks = p.persistent_blocks > 0 ? p.persistent_blocks : multiprocessors();
  // (head dim 128's size bounds 64's)
  return attention_warpgroups_persistent(p) ? blocks * (WarpgroupTiles<128>::kRunBytes / 4) : 0;
}

Status launch_attention_warpgroups(const AttentionProblem& p, int pack, std::int64_t q_tiles,
                                   std::int64_t splits, bool crosses, cudaStream_t stream) {
  const bool bf16 = p.dtype == DType::bf16;
  if (p.head_dim == 64)
    return bf16 ? launch<DType::bf16, 64>(p, pack, q_tiles, splits, crosses, stream)
                : launch<DType::f16, 64>(p, pack, q_tiles, splits, crosses, stream);
  return bf16 ? launch<DType::bf16, 128>(p, pack, q_tiles, splits, crosses, stream)
              : launch<DType::f16, 128>(p, pack, q_tiles, splits, crosses, stream);
}

}  // namespace samebits::kernels
