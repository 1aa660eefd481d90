// The attention backward on tensor cores (mma.sync m16n8k16, float32 accumulation), no atomics: D
// per row, then dK/dV per 128-key block and dQ per 128-query block, in the tensor-core order of
// invariant_attention_backward_order.h. Tiles sit at fixed positions of a sequence, never the
// batch.
#include <cmath>
#include <cstdint>

#include "kernels/attention/attention_backward_tensor_cores.h"
#include "kernels/attention/attention_backward_warpgroups.h"
#include "kernels/attention/attention_layout.h"
#include "kernels/attention/attention_warpgroups.h"
#include "kernels/attention/backward_rows.cuh"
#include "kernels/attention/backward_tile_fragments.cuh"
#include "kernels/attention/element_access.cuh"
#include "kernels/attention/invariant_attention_backward_order.h"
#include "kernels/common/cuda_status.h"
#include "kernels/common/shared_memory.h"

namespace samebits::kernels {
namespace {

namespace order = attention_order;
namespace border = attention_backward_order;
namespace layout = attention_layout;
using namespace backward_tiles;  // NOLINT(build/namespaces): this family's building blocks
using namespace backward_rows;   // NOLINT(build/namespaces)

constexpr unsigned kFull = 0xffffffffu;

using attention_elements::delta_index;
using attention_elements::load;

// D of query row i = 4 blockIdx.x + warp, head blockIdx.y, sequence blockIdx.z: lane l chains
// its D / 32 elements ascending from +0, then the lanes meet in a butterfly at distances 16, 8,
// 4, 2, 1 (every lane ends with the same sum; lane 0 stores it).
template <DType T, int D>
__global__ void __launch_bounds__(kThreads)
    row_deltas(const __grid_constant__ AttentionBackwardProblem bp) {
  const AttentionProblem& p = bp.forward;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::int64_t b = blockIdx.z, h = blockIdx.y;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kWarps + warp;
  if (i >= layout::q_len(p, b)) return;
  constexpr int kPer = D / 32;
  const std::int64_t do_at = layout::row_offset(p, b, i, bp.dout_seq_stride, bp.dout_token_stride) +
                             h * bp.dout_head_stride + lane * kPer;
  const std::int64_t o_at = layout::row_offset(p, b, i, p.out_seq_stride, p.out_token_stride) +
                            h * p.out_head_stride + lane * kPer;
  float s = 0.0f;
#pragma unroll
  for (int e = 0; e < kPer; ++e) s = fmaf(load<T>(bp.dout, do_at + e), load<T>(p.out, o_at + e), s);
#pragma unroll
  for (int m = 16; m >= 1; m /= 2) s = s + __shfl_xor_sync(kFull, s, m);
  if (lane == 0) bp.delta[delta_index(p, b, i, h)] = s;
}

// dK and dV of keys [t0, t0 + 128) = 128 blockIdx.x.., KV head blockIdx.y, sequence blockIdx.z;
// warp w holds keys t0 + 16 w... Over the group's heads ascending, then the 64-query tiles (at
// query 64 m of the sequence) that see any of the keys ascending: S^T = K Q^T, dP^T = V dO^T,
// dV += P^T dO, dK += dS^T Q, in float32 registers.
template <DType T, int D>
__global__ void __launch_bounds__(kThreads)
    key_gradients(const __grid_constant__ AttentionBackwardProblem bp) {
  using L = Tile<D>;
  using R = Tile<D, kBlockRows>;
  const AttentionProblem& p = bp.forward;
  extern __shared__ __align__(128) std::uint8_t smem[];
  __shared__ RowFacts facts[2][kRows];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const std::int64_t b = blockIdx.z, g = blockIdx.y;
  const std::int64_t t0 = static_cast<std::int64_t>(blockIdx.x) * kBlockRows;
  const std::int64_t keys = layout::kv_len(p, b), rows = layout::q_len(p, b);
  if (t0 >= keys) return;
  const std::int64_t group = p.heads / p.kv_heads;
  const std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  const std::uint32_t k_s = base, v_s = base + R::kBytes;
  const auto q_s = [&](int stage) { return base + 2 * R::kBytes + stage * L::kBytes; };
  const auto do_s = [&](int stage) { return base + 2 * R::kBytes + (2 + stage) * L::kBytes; };

  R::load(k_s, p.k, KeyRows{p, b, t0, keys, g, p.k_page_stride, p.k_token_stride, p.k_head_stride},
          tid);
  R::load(v_s, p.v, KeyRows{p, b, t0, keys, g, p.v_page_stride, p.v_token_stride, p.v_head_stride},
          tid);
  // The first query that can see key t0 (causal: position >= t0), and its tile.
  const std::int64_t first = p.causal && t0 - (keys - rows) > 0 ? t0 - (keys - rows) : 0;
  const std::int64_t m0 = first / kRows, per_head = (rows + kRows - 1) / kRows - m0;
  const int steps = per_head > 0 ? static_cast<int>(group * per_head) : 0;
  const auto load_step = [&](int step, int stage) {
    const std::int64_t h = g * group + step / per_head;
    const std::int64_t i0 = (m0 + step % per_head) * kRows;
    L::load(q_s(stage), p.q,
            QueryRows{p, b, i0, rows, h, p.q_seq_stride, p.q_token_stride, p.q_head_stride}, tid);
    L::load(
        do_s(stage), bp.dout,
        QueryRows{p, b, i0, rows, h, bp.dout_seq_stride, bp.dout_token_stride, bp.dout_head_stride},
        tid);
    if (tid < kRows) facts[stage][tid] = row_facts(bp, b, i0 + tid, h);
  };
  if (steps > 0) load_step(0, 0);
  tensor_core::commit_copies();

  constexpr int NB = D / 8;
  float dk[NB][4], dv[NB][4];
#pragma unroll
  for (int nb = 0; nb < NB; ++nb)
#pragma unroll
    for (int e = 0; e < 4; ++e) dk[nb][e] = dv[nb][e] = 0.0f;
  const float scale_log2 = p.scale * order::kLog2e;
  // The warp's keys as absolute positions: rows lane / 4 and lane / 4 + 8 of its 16.
  const int key0 = static_cast<int>(t0) + warp * 16 + lane / 4;
  for (int j = 0; j < steps; ++j) {
    if (j + 1 < steps) load_step(j + 1, (j + 1) % 2);
    tensor_core::commit_copies();
    tensor_core::wait_copies<1>();
    __syncthreads();
    const int stage = j % 2;
    // The tile's queries in two halves of 32 (fewer registers live; per accumulator the same
    // steps of 16 queries, ascending).
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int y0 = 32 * half;
      float s[4][4], dp[4][4];
      rows_by_tile<T, D, 2>(s, k_s, warp * 16, q_s(stage), lane, y0);
      rows_by_tile<T, D, 2>(dp, v_s, warp * 16, do_s(stage), lane, y0);
#pragma unroll
      for (int nb = 0; nb < 4; ++nb)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const RowFacts& f = facts[stage][y0 + nb * 8 + 2 * (lane % 4) + e % 2];
          const PairGrad pg =
              pair_grad(key0 + 8 * (e / 2) < f.visible, s[nb][e], dp[nb][e], scale_log2, f);
          s[nb][e] = pg.p;
          dp[nb][e] = pg.ds;
        }
      std::uint32_t pa[2][4];
      pack_a<T, 2>(s, pa);
      accumulate<T, D, 2>(dv, pa, do_s(stage), lane, y0);
      pack_a<T, 2>(dp, pa);
      accumulate<T, D, 2>(dk, pa, q_s(stage), lane, y0);
    }
    __syncthreads();  // the stage just read is a later step's load target
  }
  tensor_core::wait_copies<0>();
  store_rows<T>(bp.dk, dk, key0, keys, lane, p.scale, [&](std::int64_t t) {
    return layout::kv_offset(p, b, t, bp.dk_seq_stride, bp.dk_token_stride) + g * bp.dk_head_stride;
  });
  store_rows<T>(bp.dv, dv, key0, keys, lane, 1.0f, [&](std::int64_t t) {
    return layout::kv_offset(p, b, t, bp.dv_seq_stride, bp.dv_token_stride) + g * bp.dv_head_stride;
  });
}

// dQ of queries [i0, i0 + 128) = 128 blockIdx.x.., head blockIdx.y, sequence blockIdx.z; warp w
// holds rows i0 + 16 w... Over the 64-key tiles at absolute positions 0, 64, ... up to the block's
// last visible key, ascending: S = Q K^T, dP = dO V^T, dQ += dS K.
template <DType T, int D>
__global__ void __launch_bounds__(kThreads)
    query_gradients(const __grid_constant__ AttentionBackwardProblem bp) {
  using L = Tile<D>;
  using R = Tile<D, kBlockRows>;
  const AttentionProblem& p = bp.forward;
  extern __shared__ __align__(128) std::uint8_t smem[];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const std::int64_t b = blockIdx.z, h = blockIdx.y;
  const std::int64_t i0 = static_cast<std::int64_t>(blockIdx.x) * kBlockRows;
  const std::int64_t keys = layout::kv_len(p, b), rows = layout::q_len(p, b);
  if (i0 >= rows) return;
  const std::int64_t g = h / (p.heads / p.kv_heads);
  const std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  const std::uint32_t q_s = base, do_s = base + R::kBytes;
  const auto k_s = [&](int stage) { return base + 2 * R::kBytes + stage * L::kBytes; };
  const auto v_s = [&](int stage) { return base + 2 * R::kBytes + (2 + stage) * L::kBytes; };

  R::load(q_s, p.q, QueryRows{p, b, i0, rows, h, p.q_seq_stride, p.q_token_stride, p.q_head_stride},
          tid);
  R::load(
      do_s, bp.dout,
      QueryRows{p, b, i0, rows, h, bp.dout_seq_stride, bp.dout_token_stride, bp.dout_head_stride},
      tid);
  const std::int64_t last = (i0 + kBlockRows < rows ? i0 + kBlockRows : rows) - 1;
  const std::int64_t end = layout::visible_keys(p, b, last);
  const int tiles = static_cast<int>((end + kRows - 1) / kRows);
  const auto load_tile = [&](int j, int stage) {
    const std::int64_t tj = static_cast<std::int64_t>(j) * kRows;
    L::load(k_s(stage), p.k,
            KeyRows{p, b, tj, keys, g, p.k_page_stride, p.k_token_stride, p.k_head_stride}, tid);
    L::load(v_s(stage), p.v,
            KeyRows{p, b, tj, keys, g, p.v_page_stride, p.v_token_stride, p.v_head_stride}, tid);
  };
  if (tiles > 0) load_tile(0, 0);
  tensor_core::commit_copies();

  // The thread's rows: lane / 4 and lane / 4 + 8 of the warp's 16.
  const int row0 = warp * 16 + lane / 4;
  const RowFacts f[2] = {row_facts(bp, b, i0 + row0, h), row_facts(bp, b, i0 + row0 + 8, h)};
  constexpr int NB = D / 8;
  float dq[NB][4];
#pragma unroll
  for (int nb = 0; nb < NB; ++nb)
#pragma unroll
    for (int e = 0; e < 4; ++e) dq[nb][e] = 0.0f;
  const float scale_log2 = p.scale * order::kLog2e;
  for (int j = 0; j < tiles; ++j) {
    if (j + 1 < tiles) load_tile(j + 1, (j + 1) % 2);
    tensor_core::commit_copies();
    tensor_core::wait_copies<1>();
    __syncthreads();
    const int stage = j % 2;
    float s[8][4], dp[8][4];
    rows_by_tile<T, D>(s, q_s, warp * 16, k_s(stage), lane);
    rows_by_tile<T, D>(dp, do_s, warp * 16, v_s(stage), lane);
#pragma unroll
    for (int nb = 0; nb < 8; ++nb)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int t = j * kRows + nb * 8 + 2 * (lane % 4) + e % 2;
        const RowFacts& fr = f[e / 2];
        dp[nb][e] = pair_grad(t < fr.visible, s[nb][e], dp[nb][e], scale_log2, fr).ds;
      }
    std::uint32_t pa[4][4];
    pack_a<T>(dp, pa);
    accumulate<T, D>(dq, pa, k_s(stage), lane);
    __syncthreads();  // the stage just read is a later tile's load target
  }
  tensor_core::wait_copies<0>();
  store_rows<T>(bp.dq, dq, i0 + row0, rows, lane, p.scale, [&](std::int64_t i) {
    return layout::row_offset(p, b, i, bp.dq_seq_stride, bp.dq_token_stride) +
           h * bp.dq_head_stride;
  });
}

template <DType T, int D>
Status launch_dim(const AttentionBackwardProblem& bp, cudaStream_t stream) {
  const AttentionProblem& p = bp.forward;
  const auto z = static_cast<unsigned>(p.sequences);
  const auto row_warps = static_cast<unsigned>((p.max_q_len + kWarps - 1) / kWarps);
  const auto q_blocks = static_cast<unsigned>((p.max_q_len + kBlockRows - 1) / kBlockRows);
  const auto k_blocks = static_cast<unsigned>((p.max_kv_len + kBlockRows - 1) / kBlockRows);
  // two resident tiles of the block's rows, two streamed ones double-buffered
  constexpr int kBytes = 2 * Tile<D, kBlockRows>::kBytes + 4 * Tile<D>::kBytes;
  for (const Status s : {allow_dynamic_shared_memory(key_gradients<T, D>, kBytes),
                         allow_dynamic_shared_memory(query_gradients<T, D>, kBytes)})
    if (s != Status::ok) return s;
  if (row_warps == 0) return Status::ok;
  row_deltas<T, D><<<dim3(row_warps, static_cast<unsigned>(p.heads), z), kThreads, 0, stream>>>(bp);
  // On Hopper, the same blocks on wgmma (the same bits; tests turn it off to compare).
  if (p.warpgroup_mma && attention_warpgroups_available()) {
    if (const Status s = launch_status(); s != Status::ok) return s;
    return launch_attention_backward_warpgroups(bp, stream);
  }
  if (k_blocks > 0)
    key_gradients<T, D>
        <<<dim3(k_blocks, static_cast<unsigned>(p.kv_heads), z), kThreads, kBytes, stream>>>(bp);
  query_gradients<T, D>
      <<<dim3(q_blocks, static_cast<unsigned>(p.heads), z), kThreads, kBytes, stream>>>(bp);
  return launch_status();
}

bool aligned(const void* ptr, std::uintptr_t bytes) {
  return reinterpret_cast<std::uintptr_t>(ptr) % bytes == 0;
}

}  // namespace

bool attention_backward_tensor_cores_supported(const AttentionBackwardProblem& bp) {
  const AttentionProblem& p = bp.forward;
  if (!attention_tensor_cores_supported(p) || p.block_table) return false;
  if (p.max_q_len < 0 || p.max_q_len > 0x7fffffff) return false;
  if (!aligned(bp.dout, 16)) return false;
  for (const std::int64_t stride : {bp.dout_seq_stride, bp.dout_token_stride, bp.dout_head_stride})
    if (stride % 8 != 0) return false;
  if (!aligned(bp.dq, 4) || !aligned(bp.dk, 4) || !aligned(bp.dv, 4)) return false;
  for (const std::int64_t stride : {bp.dq_seq_stride, bp.dq_token_stride, bp.dq_head_stride,
                                    bp.dk_seq_stride, bp.dk_token_stride, bp.dk_head_stride,
                                    bp.dv_seq_stride, bp.dv_token_stride, bp.dv_head_stride})
    if (stride % 2 != 0) return false;
  return true;
}

Status invariant_attention_backward_tensor_cores_cuda(const AttentionBackwardProblem& bp,
                                                      cudaStream_t stream) {
  if (!attention_backward_tensor_cores_supported(bp)) return Status::invalid_argument;
  const bool bf16 = bp.forward.dtype == DType::bf16;
  if (bp.forward.head_dim == 64)
    return bf16 ? launch_dim<DType::bf16, 64>(bp, stream) : launch_dim<DType::f16, 64>(bp, stream);
  return bf16 ? launch_dim<DType::bf16, 128>(bp, stream) : launch_dim<DType::f16, 128>(bp, stream);
}

}  // namespace samebits::kernels
