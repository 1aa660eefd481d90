// The invariant attention on tensor cores (mma.sync m16n8k16, float32 accumulation): blocks of
// query rows over 64-key tiles at absolute positions, in the tensor-core order of
// invariant_attention_order.h. A row's instructions are its own, whatever else shares the block.
#include <cmath>
#include <cstdint>

#include "kernels/attention/attention_tensor_cores.h"
#include "kernels/attention/attention_warpgroups.h"
#include "kernels/attention/decode_tile_exchange.cuh"
#include "kernels/attention/split_merge.h"
#include "kernels/attention/tensor_core_tiles.cuh"
#include "kernels/attention/tile_producer.cuh"
#include "kernels/common/cuda_status.h"
#include "kernels/common/shared_memory.h"

namespace samebits::kernels {
namespace {

using namespace tensor_core;  // NOLINT(build/namespaces): this file's own building blocks

template <DType T, int D, int MT, int CG>
__global__ void __launch_bounds__(kThreads, 2)
    attention_tensor_cores(const __grid_constant__ AttentionProblem p, int pack,
                           std::int64_t q_tiles, std::int64_t splits) {
  using L = Tiles<D, MT, CG>;
  constexpr int kRowsPerThread = 2 * MT;
  constexpr int NB = D / 8 / CG;  // the warp's accumulator blocks of 8 columns
  constexpr int C = L::kChunks;
  constexpr std::int64_t kSplit = order::kTensorCoreSplitKeys;
  extern __shared__ __align__(128) std::uint8_t smem[];
  __shared__ TileSource src;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;

  const BlockRows rows = block_rows<MT, CG>(p, pack, q_tiles, splits);
  if (rows.first >= rows.q_len) return;
  const std::int64_t begin = rows.begin, end = rows.end;
  if (tid == 0) {
    const std::int64_t kv_base = p.kv_offsets ? p.kv_offsets[rows.b] : 0;
    src.b = rows.b;
    src.begin = begin;
    src.end = end;
    src.k_head = rows.g * p.k_head_stride;
    src.v_head = rows.g * p.v_head_stride;
    src.k_base = rows.b * p.k_page_stride + kv_base * p.k_token_stride + src.k_head;
    src.v_base = rows.b * p.v_page_stride + kv_base * p.v_token_stride + src.v_head;
  }
  __syncthreads();

  const std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  const Loader<L> load{p,  src, base, base + L::kQ * 16, base + (L::kQ + L::kStages * L::kKV) * 16,
                       tid};
  // The merged partial of earlier splits: the block's slice of the border workspace, else shared
  // memory (laid out alike: float i of thread t at i * kThreads + t).
  float* run_s = reinterpret_cast<float*>(smem + L::kTileBytes);
  if (p.border_workspace) {
    const std::int64_t block =
        (static_cast<std::int64_t>(blockIdx.z) * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    run_s = p.border_workspace + block * (L::kRunBytes / 4);
  }

  // The thread's rows: their visible keys past `begin` (0 for a missing row; positions fit 31
  // bits, checked on the host), so a tile's bookkeeping is 32-bit.
  int n[kRowsPerThread];
#pragma unroll
  for (int k = 0; k < kRowsPerThread; ++k) {
    const std::int64_t i = rows.token(row_of<MT, CG>(warp, lane, k));
    const std::int64_t visible = i < rows.q_len ? layout::visible_keys(p, rows.b, i) : 0;
    n[k] = visible > begin ? static_cast<int>(visible - begin) : 0;
  }
  // A warp whose rows are all missing skips the arithmetic (it still loads and waits).
  const bool warp_idle = rows.token(row_of<MT, CG>(warp, 0, 0)) >= rows.q_len;

  // The running partial of the split under way, started as (m, l, acc) = (-inf, +0, +0).
  float acc[MT][NB][4];
  RowState cur[kRowsPerThread];
  auto start_split = [&] {
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int nb = 0; nb < NB; ++nb)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[mt][nb][e] = 0.0f;
#pragma unroll
    for (int k = 0; k < kRowsPerThread; ++k) cur[k] = RowState{};
  };
  start_split();
  // The warp's first output column (decode shape: a quarter each).
  const int col0 = CG == 1 ? 0 : warp * (D / CG);

  const float scale_log2 = p.scale * order::kLog2e;
  const int tiles = begin < end ? static_cast<int>((end - begin + kKeys - 1) / kKeys) : 0;
  // The pipeline: tiles 0 .. kStages - 2 in flight before the loop; each iteration starts the copy
  // of tile j + kStages - 1 (a group per iteration, empty past the end) and waits for tile j.
  const TileProducer<L> producer(p, src, load.k_s, load.v_s, tid);
  const std::int32_t* table =
      p.block_table ? p.block_table + src.b * p.block_table_stride : nullptr;
  load.queries(rows);
#pragma unroll
  for (int j = 0; j < L::kStages - 1; ++j) {
    if (j < tiles) producer.tile(j, j, table);
    commit_copies();
  }
  // The page of the next tile to copy, read one iteration before its copies are issued.
  std::int32_t next_page = L::kStages - 1 < tiles ? producer.page_of(L::kStages - 1, table) : 0;
  auto copy_ahead = [&](int ahead) {
    if (ahead < tiles) {
      producer.tile(ahead, ahead % L::kStages, table, next_page);
      if (ahead + 1 < tiles) next_page = producer.page_of(ahead + 1, table);
    }
    commit_copies();
  };

  // Fragment addresses: a lane's byte offset for the first 16-column step; step kc (or np) is that
  // offset XOR (kc << 5), since the swizzle XORs the chunk with row & 7 and rows are 2^k bytes.
  const int row_bytes = C * 16;
  const std::uint32_t q_lane =
      ((CG == 1 ? warp * 16 * MT : 0) + lane % 8 + 8 * ((lane / 8) % 2)) * row_bytes +
      (((lane / 16) ^ (lane % 8)) << 4);
  const std::uint32_t k_lane =
      (lane % 8 + 8 * (lane / 16)) * row_bytes + ((((lane / 8) % 2) ^ (lane % 8)) << 4);
  const std::uint32_t v_lane =
      (lane % 8 + 8 * ((lane / 8) % 2)) * row_bytes + (((lane / 16) ^ (lane % 8)) << 4);

  // A split border inside the block's keys (not in split mode): close the split before it.
  auto close_if_border = [&](int t0) {
    if (splits || t0 == 0 || t0 % kSplit != 0) return;  // (begin = 0 in whole mode)
    close_split<kThreads, MT, NB>(run_s, tid, acc, cur, n, t0 - static_cast<int>(kSplit));
    start_split();
  };

  // S = Q K^T for the tile in `stage`: 8 blocks of 8 keys, d in 16-wide steps from +0.
  auto scores = [&](int stage, float(&s)[MT][8][4]) {
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int nb = 0; nb < 8; ++nb)
#pragma unroll
        for (int e = 0; e < 4; ++e) s[mt][nb][e] = 0.0f;
    const std::uint32_t k_stage = load.k_s + stage * L::kKV * 16;
#pragma unroll
    for (int kc = 0; kc < D / 16; ++kc) {
      std::uint32_t qf[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
        ldmatrix(qf[mt], load.q_s + mt * 16 * row_bytes + (q_lane ^ (kc << 5)));
#pragma unroll
      for (int np = 0; np < 4; ++np) {
        std::uint32_t kb[4];
        ldmatrix(kb, k_stage + np * 16 * row_bytes + (k_lane ^ (kc << 5)));
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          mma<T>(s[mt][2 * np], qf[mt], kb[0], kb[1]);
          mma<T>(s[mt][2 * np + 1], qf[mt], kb[2], kb[3]);
        }
      }
    }
  };

  // Online softmax per row (step 2 of the tensor-core order) for the tile at t0 (past begin); P,
  // rounded to the input type, as the A operand of 4 steps of 16 keys.
  float alpha[kRowsPerThread];
  bool live[kRowsPerThread];
  std::uint32_t pa[MT][4][4];
  auto softmax = [&](float(&s)[MT][8][4], int t0) {
    online_softmax<T, MT>(s, t0, lane, scale_log2, n, cur, alpha, live, pa);
  };

  // acc = acc * alpha, then P V accumulated onto it: per 16 output columns (the warp's), keys
  // in 16-wide steps, ascending.
  auto accumulate = [&](int stage) {
    rescale<MT, NB>(acc, alpha);
    const std::uint32_t v_stage = load.v_s + stage * L::kKV * 16;
#pragma unroll
    for (int np = 0; np < NB / 2; ++np) {
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        std::uint32_t vb[4];
        ldmatrix_trans(vb, v_stage + c * 16 * row_bytes + (v_lane ^ ((col0 / 16 + np) << 5)));
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          mma<T>(acc[mt][2 * np], pa[mt][c], vb[0], vb[1]);
          mma<T>(acc[mt][2 * np + 1], pa[mt][c], vb[2], vb[3]);
        }
      }
    }
  };

  if constexpr (CG == 1) {
    // Prefill: per tile, wait for it, then scores, softmax and PV.
    float s[MT][8][4];
    for (int j = 0; j < tiles; ++j) {
      copy_ahead(j + L::kStages - 1);
      wait_copies<L::kStages - 1>();
      __syncthreads();
      if (!warp_idle) {
        close_if_border(j * kKeys);
        scores(j % L::kStages, s);
        softmax(s, j * kKeys);
        accumulate(j % L::kStages);
      }
      __syncthreads();  // the stage just read is a later iteration's load target
    }
  } else {
    // Decode (one m16 tile of rows shared by the four warps, one warp per scheduler): a tile's
    // keys spread over the warps, 16 each, and the rows' state assembled in shared memory
    // (decode_tile_exchange.cuh says why the bits are the same as above).
    static_assert(kWarps == kDecodeWarps && MT == 1, "the exchange holds four warps' keys");
    static_assert(L::kStages >= 3, "tiles j + 1 and j + 2 load while tile j is read");
    __shared__ DecodeExchange ex;
    std::uint32_t qf[D / 16][4];  // the queries' A fragments, read once
    float m_new[kRowsPerThread];
    for (int j = 0; j < tiles; ++j) {
      wait_copies<L::kStages - 2>();  // tile j is in (the queries came with tile 0)
      __syncthreads();                // and every warp is done with the stage copied next
      copy_ahead(j + L::kStages - 1);
      if (j == 0) {
#pragma unroll
        for (int kc = 0; kc < D / 16; ++kc) ldmatrix(qf[kc], load.q_s + (q_lane ^ (kc << 5)));
      }
      close_if_border(j * kKeys);
      // The scores of keys 16 warp ... 16 warp + 15: two blocks of 8, d in 16-wide steps from +0.
      float sw[2][4] = {};
      const std::uint32_t k_rows =
          load.k_s + (j % L::kStages) * L::kKV * 16 + warp * 16 * row_bytes;
#pragma unroll
      for (int kc = 0; kc < D / 16; ++kc) {
        std::uint32_t kb[4];
        ldmatrix(kb, k_rows + (k_lane ^ (kc << 5)));
        mma<T>(sw[0], qf[kc], kb[0], kb[1]);
        mma<T>(sw[1], qf[kc], kb[2], kb[3]);
      }
      decode_tile_top(ex, sw, warp, lane, j * kKeys, scale_log2, n);
      __syncthreads();
      decode_tile_probabilities<T>(ex, sw, warp, lane, j * kKeys, scale_log2, n, cur, alpha, m_new,
                                   live);
      __syncthreads();
      decode_tile_gather(ex, lane, alpha, m_new, live, cur, pa);
      accumulate(j % L::kStages);
    }
  }
  wait_copies<0>();  // the queries' copies, when the block had no tile
  if (warp_idle) return;
  const BlockRows rows_again = block_rows<MT, CG>(p, pack, q_tiles, splits);

  const RowEpilogue<BlockRows, MT, NB> epilogue{p, rows_again, splits, lane, col0};
  auto row = [&](int k) { return row_of<MT, CG>(warp, lane, k); };
  if (splits) {
    epilogue.partials(acc, cur, n, row);
    return;
  }
  // Whole mode: step 4, the last split merged onto the earlier ones where the block had several.
  epilogue.template whole<T, kThreads>(run_s, tid, acc, cur, n, row);
}

// Query heads per token in a block of `rows` rows: the whole KV group when it divides them.
int heads_per_token(const AttentionProblem& p, int rows) {
  const std::int64_t group = p.heads / p.kv_heads;
  return group <= rows && rows % group == 0 ? static_cast<int>(group) : 1;
}

// The decode shape when one block of 16 rows holds a sequence's rows of a KV group.
bool decode_shape(const AttentionProblem& p) {
  return p.max_q_len * heads_per_token(p, kRows<1, 4>) <= kRows<1, 4>;
}

template <DType T, int D, int MT, int CG>
Status launch_blocks(const AttentionProblem& p, std::int64_t splits, cudaStream_t stream) {
  using L = Tiles<D, MT, CG>;
  const int pack = heads_per_token(p, kRows<MT, CG>);
  const std::int64_t tokens = kRows<MT, CG> / pack;
  const std::int64_t q_tiles = (p.max_q_len + tokens - 1) / tokens;
  const std::int64_t x = q_tiles * (splits > 0 ? splits : 1);
  if (x > 0x7fffffff) return Status::invalid_argument;
  // Prefill blocks on wgmma where the GPU has it: the same rows and bits (mma.sync and wgmma
  // round a 16-wide step alike; the order header says how that is checked). Their shared memory
  // is all tiles, so a row's merged partial of earlier splits needs the border workspace
  // (attention_border_workspace_floats sizes it for them); without it, the mma.sync blocks.
  if constexpr (CG == 1) {
    const bool crosses = splits == 0 && p.max_kv_len > order::kTensorCoreSplitKeys;
    if (p.warpgroup_mma && attention_warpgroups_available() &&
        (!crosses || (p.border_workspace &&
                      p.border_workspace_floats >= attention_warpgroups_border_floats(p))))
      return launch_attention_warpgroups(p, pack, q_tiles, splits, crosses, stream);
  }
  // The merged-partial space in shared memory only when some block's keys cross a split border
  // (whole mode) and no border workspace holds it.
  const bool crosses =
      splits == 0 && p.max_kv_len > order::kTensorCoreSplitKeys && !p.border_workspace;
  if (splits == 0 && p.border_workspace &&
      p.border_workspace_floats < x * p.heads / pack * p.sequences * (L::kRunBytes / 4))
    return Status::workspace_too_small;
  const int bytes = L::kTileBytes + (crosses ? L::kRunBytes : 0);
  // Opted in once, to the device's maximum (kernels/common/shared_memory.h): thread-safe, and no
  // driver call per launch.
  if (const Status s = allow_dynamic_shared_memory(attention_tensor_cores<T, D, MT, CG>, bytes);
      s != Status::ok)
    return s;
  const dim3 grid(static_cast<unsigned>(x), static_cast<unsigned>(p.heads / pack),
                  static_cast<unsigned>(p.sequences));
  attention_tensor_cores<T, D, MT, CG><<<grid, kThreads, bytes, stream>>>(p, pack, q_tiles, splits);
  if (const Status s = launch_status(); s != Status::ok) return s;
  if (splits > 0) launch_split_merge(p, splits, order::kTensorCoreSplitKeys, stream);
  return launch_status();
}

template <DType T, int D>
Status launch_dim(const AttentionProblem& p, std::int64_t splits, cudaStream_t stream) {
  if (decode_shape(p)) return launch_blocks<T, D, 1, 4>(p, splits, stream);
  return launch_blocks<T, D, 2, 1>(p, splits, stream);
}

bool aligned16(const void* ptr) {
  return reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0;
}

}  // namespace

std::int64_t attention_border_workspace_floats(const AttentionProblem& p) {
  if (p.algorithm != AttentionAlgorithm::tensor_cores ||
      p.max_kv_len <= order::kTensorCoreSplitKeys)
    return 0;
  const bool decode = decode_shape(p);
  // The wgmma blocks: one slice per persistent block.
  if (!decode && p.warpgroup_mma && attention_warpgroups_available())
    return attention_warpgroups_border_floats(p);
  const int run_floats = decode ? Tiles<128, 1, 4>::kRunBytes / 4 : Tiles<128, 2, 1>::kRunBytes / 4;
  // (head dim 128's size bounds 64's)
  return attention_tensor_cores_blocks(p) * run_floats;
}

bool attention_takes_turns(const AttentionProblem& p) {
  return p.algorithm == AttentionAlgorithm::tensor_cores && !decode_shape(p) && p.warpgroup_mma &&
         attention_warpgroups_available() && attention_warpgroups_persistent(p);
}

std::int64_t attention_tensor_cores_blocks(const AttentionProblem& p) {
  const int rows = decode_shape(p) ? kRows<1, 4> : kRows<2, 1>;
  const int pack = heads_per_token(p, rows);
  const std::int64_t q_tiles = (p.max_q_len + rows / pack - 1) / (rows / pack);
  return p.sequences * q_tiles * (p.heads / pack);
}

bool attention_tensor_cores_supported(const AttentionProblem& p) {
  if (p.head_dim != 64 && p.head_dim != 128) return false;
  // (the order's row max takes the largest score times a positive scale)
  if (!(p.scale > 0.0f) || !std::isfinite(p.scale)) return false;
  if (!aligned16(p.q) || !aligned16(p.k) || !aligned16(p.v)) return false;
  // Key positions and pages are found in 32 bits; max_kv_len sizes the shared memory.
  if (p.max_kv_len < 0 || p.max_kv_len > 0x7fffffff) return false;
  if (p.block_table && p.page_size > 0x7fffffff) return false;
  for (const std::int64_t stride :
       {p.q_seq_stride, p.q_token_stride, p.q_head_stride, p.k_page_stride, p.k_token_stride,
        p.k_head_stride, p.v_page_stride, p.v_token_stride, p.v_head_stride}) {
    if (stride % 8 != 0) return false;
  }
  // out is written two elements at a time.
  return reinterpret_cast<std::uintptr_t>(p.out) % 4 == 0 && p.out_seq_stride % 2 == 0 &&
         p.out_token_stride % 2 == 0 && p.out_head_stride % 2 == 0;
}

Status invariant_attention_tensor_cores_cuda(const AttentionProblem& p, cudaStream_t stream) {
  if (!attention_tensor_cores_supported(p)) return Status::invalid_argument;
  // Splits on their own blocks when a workspace is given and there is more than one split.
  std::int64_t splits = 0;
  if (p.workspace) {
    if (p.workspace_floats < attention_split_workspace_floats(p))
      return Status::workspace_too_small;
    splits = (p.max_kv_len + order::kTensorCoreSplitKeys - 1) / order::kTensorCoreSplitKeys;
    if (splits < 2) splits = 0;
  }
  const bool bf16 = p.dtype == DType::bf16;
  if (p.head_dim == 64)
    return bf16 ? launch_dim<DType::bf16, 64>(p, splits, stream)
                : launch_dim<DType::f16, 64>(p, splits, stream);
  return bf16 ? launch_dim<DType::bf16, 128>(p, splits, stream)
              : launch_dim<DType::f16, 128>(p, splits, stream);
}

}  // namespace samebits::kernels
