// The attention backward's dK/dV and dQ blocks on Hopper's warpgroup MMA: a copying warpgroup and
// two computing warpgroups of 64 rows each, in the tensor-core order of the mma.sync blocks.
#include <cstdint>

#include "kernels/attention/attention_backward_warpgroups.h"
#include "kernels/attention/attention_warpgroups.h"
#include "kernels/attention/backward_rows.cuh"
#include "kernels/attention/backward_tile_fragments.cuh"
#include "kernels/common/cuda_status.h"
#include "kernels/common/shared_memory.h"
#include "kernels/common/stage_barriers.cuh"
#include "kernels/common/warpgroup_instructions.cuh"

namespace samebits::kernels {
namespace {

namespace order = attention_order;
namespace layout = attention_layout;
using namespace backward_rows;  // NOLINT(build/namespaces): this family's building blocks

// A block holds 128 rows of one sequence and head (keys of a KV head for dK/dV, queries of a
// head for dQ: its "own" rows, tiles X and Y) and streams 64-row tiles of the other side (A and
// B) through kStages stages. The copying warpgroup fills them; the two computing warpgroups take
// 64 own rows each and meet the copies only at per-stage barriers.
constexpr int kCopyThreads = 128, kMathThreads = 256, kBlockThreads = kCopyThreads + kMathThreads;
constexpr int kOwnRows = 128, kTileRows = 64, kStages = 3;
// Registers per thread after the warpgroups trade, within the block's launch allocation (168 per
// thread: 128 * 56 + 256 * 224 = 384 * 168; more would leave setmaxnreg.inc waiting forever):
// the computing threads hold dK and dV (128 floats) beside S and dP, the copies' addresses 56.
constexpr unsigned kCopyRegisters = 56, kMathRegisters = 224;
constexpr int kBlockBytes = 128;  // a column block's row: 64 16-bit elements
constexpr int kAlign = 1024;      // the 128-byte swizzle's atom

// A [Rows][D] tile in column blocks of 64 elements, chunk c of row r at c ^ (r & 7) within its
// block's row (the 128-byte swizzle wgmma reads, as the forward's WarpgroupTiles).
template <int D, int Rows>
struct BlockTile {
  static constexpr int kChunks = D / 8, kBytes = Rows * D * 2;
  __device__ static std::uint32_t chunk(int r, int c) {
    return static_cast<std::uint32_t>(((c / 8) * Rows * 8 + r * 8 + ((c % 8) ^ (r % 8))) * 16);
  }
  // Rows [0, Rows) from global memory, `token_stride` elements apart from `row0`, the first
  // `valid` of them real (the rest zeros): each of the copying warpgroup's threads one chunk
  // column, asynchronously (cp.async), with no memory read to place a row.
  __device__ static void load_rows(std::uint32_t dst, const std::uint16_t* row0,
                                   std::int64_t token_stride, std::int64_t valid, int tid) {
    constexpr int kPass = kCopyThreads / kChunks;  // a multiple of 8: one swizzle phase
    static_assert(kPass % 8 == 0, "a thread's rows share the swizzle's phase");
    const int r0 = tid / kChunks, c = tid % kChunks;
    const std::uint16_t* src = row0 + r0 * token_stride + c * 8;
    const std::uint32_t to = dst + chunk(r0, c);
#pragma unroll
    for (int i = 0; i < Rows / kPass; ++i) {
      const bool real = r0 + i * kPass < valid;
      tensor_core::copy16(to + i * kPass * kBlockBytes, real ? src : row0, real);
      src += kPass * token_stride;
    }
  }
};

// Where a block's rows are and what it streams. Keys: keys [first, first + 128) of KV head
// `head`, over (query head of the group ascending, 64-query tile from m0 ascending) steps. Not
// Keys: queries [first, first + 128) of head `head`, over the 64-key tiles from 0 ascending.
template <bool Keys>
struct BlockPlan {
  std::int64_t b, head, first, keys, rows, group, m0, per_head;
  int steps;
  bool causal;
  __device__ BlockPlan(const AttentionProblem& p) {
    b = blockIdx.z;
    causal = p.causal;
    head = blockIdx.y;
    keys = layout::kv_len(p, b);
    rows = layout::q_len(p, b);
    group = p.heads / p.kv_heads;
    // (dQ blocks in reverse: under a causal mask the last queries have the most keys, so they go
    // first; which block holds which rows changes no bit)
    const std::int64_t x = Keys ? blockIdx.x : gridDim.x - 1 - blockIdx.x;
    first = x * kOwnRows;
    m0 = per_head = 0;
    steps = 0;
    if (empty()) return;
    if (Keys) {
      // The first query that can see key `first` (causal: position >= first), and its tile.
      const std::int64_t q = p.causal && first - (keys - rows) > 0 ? first - (keys - rows) : 0;
      m0 = q / kTileRows;
      per_head = (rows + kTileRows - 1) / kTileRows - m0;
      steps = per_head > 0 ? static_cast<int>(group * per_head) : 0;
    } else {
      const std::int64_t last = (first + kOwnRows < rows ? first + kOwnRows : rows) - 1;
      steps = static_cast<int>((layout::visible_keys(p, b, last) + kTileRows - 1) / kTileRows);
    }
  }
  __device__ std::int64_t own_count() const { return Keys ? keys : rows; }
  // The keys query i sees (layout::visible_keys, from the lengths held here).
  __device__ std::int64_t visible(std::int64_t i) const {
    return layout::visible_keys(causal, keys, rows, i);
  }
  __device__ bool empty() const { return first >= own_count(); }
  // Step j's query head and first query (Keys), or first key (not Keys).
  __device__ std::int64_t step_head(int j) const {
    return Keys ? head * group + j / per_head : head / group;
  }
  __device__ std::int64_t step_first(int j) const {
    return Keys ? (m0 + j % per_head) * kTileRows : static_cast<std::int64_t>(j) * kTileRows;
  }
};

#if defined(SAMEBITS_WGMMA_DEVICE)
// The copying warpgroup: the own tiles X, Y with step 0, then step j's tiles A, B into stage
// j % S once the stage's step j - S has been read. Every address comes from the sequence's first
// row, found once: a step issues its copies without waiting on a read, and the thread arrives on a
// stage's barrier once that stage's copies have landed, while the next stage's are in flight.
template <bool Keys, int D>
__device__ void copy_steps(const AttentionBackwardProblem& bp, const BlockPlan<Keys>& plan,
                           std::uint32_t x_s, std::uint32_t y_s, std::uint32_t a_s,
                           std::uint32_t b_s, int tid, std::uint32_t full, std::uint32_t empty) {
  using Own = BlockTile<D, kOwnRows>;
  using Step = BlockTile<D, kTileRows>;
  const AttentionProblem& p = bp.forward;
  const std::int64_t b = plan.b;
  // Each tensor's rows of the sequence: its query 0 or key 0 (before the head term), and the
  // distances between rows and between heads.
  struct Rows {
    const std::uint16_t* row0;
    std::int64_t token, head;
    __device__ const std::uint16_t* at(std::int64_t row, std::int64_t h) const {
      return row0 + row * token + h * head;
    }
  };
  const auto queries = [&](const void* base, std::int64_t seq, std::int64_t token,
                           std::int64_t head) {
    return Rows{static_cast<const std::uint16_t*>(base) + layout::row_offset(p, b, 0, seq, token),
                token, head};
  };
  const auto keys = [&](const void* base, std::int64_t page, std::int64_t token,
                        std::int64_t head) {
    return Rows{static_cast<const std::uint16_t*>(base) + layout::kv_offset(p, b, 0, page, token),
                token, head};
  };
  const Rows q = queries(p.q, p.q_seq_stride, p.q_token_stride, p.q_head_stride);
  const Rows dout = queries(bp.dout, bp.dout_seq_stride, bp.dout_token_stride, bp.dout_head_stride);
  const Rows k = keys(p.k, p.k_page_stride, p.k_token_stride, p.k_head_stride);
  const Rows v = keys(p.v, p.v_page_stride, p.v_token_stride, p.v_head_stride);
  // Own tiles X, Y (k, v or q, dout) in the commit group of step 0; step tiles A, B (q, dout or
  // k, v).
  const Rows &x_rows = Keys ? k : q, &y_rows = Keys ? v : dout;
  const Rows &a_rows = Keys ? q : k, &b_rows = Keys ? dout : v;
  const std::int64_t own = plan.own_count() - plan.first;
  Own::load_rows(x_s, x_rows.at(plan.first, plan.head), x_rows.token, own, tid);
  Own::load_rows(y_s, y_rows.at(plan.first, plan.head), y_rows.token, own, tid);
  const std::int64_t count = Keys ? plan.rows : plan.keys;  // the step side's rows
  for (int j = 0; j < plan.steps; ++j) {
    const int s = j % kStages;
    if (j >= kStages) warpgroup::barrier_wait(empty + s * 8, (j / kStages + 1) & 1);
    const std::int64_t h = plan.step_head(j), t0 = plan.step_first(j);
    const std::uint32_t at = s * Step::kBytes;
    Step::load_rows(a_s + at, a_rows.at(t0, h), a_rows.token, count - t0, tid);
    Step::load_rows(b_s + at, b_rows.at(t0, h), b_rows.token, count - t0, tid);
    // Step j - 1's copies have landed once only step j's are pending: then a plain arrival
    // releases them (its stage's `full` completes on the copying threads' 128 arrivals).
    tensor_core::commit_copies();
    tensor_core::wait_copies<1>();
    if (j > 0) warpgroup::barrier_arrive(full + ((j - 1) % kStages) * 8);
  }
  tensor_core::wait_copies<0>();
  if (plan.steps > 0) warpgroup::barrier_arrive(full + ((plan.steps - 1) % kStages) * 8);
}
#endif

// dK and dV (Keys) or dQ of a block's 128 own rows. Per step, each computing warpgroup: S = X A^T
// and dP = Y B^T over d in 16-wide steps from +0; P and dS per pair; then (Keys) dV += P^T B and
// dK += dS^T A, or dQ += dS A, over the tile's 4 steps of 16 rows ascending: the chains of the
// mma.sync blocks (attention_backward_tensor_cores.cu), the same instruction per 16-wide step.
template <DType T, int D, bool Keys>
__global__ void __launch_bounds__(kBlockThreads, 1)
    gradients_warpgroups(const __grid_constant__ AttentionBackwardProblem bp) {
#if defined(SAMEBITS_WGMMA_DEVICE)
  using Own = BlockTile<D, kOwnRows>;
  using Step = BlockTile<D, kTileRows>;
  constexpr int NB = D / 8;
  const AttentionProblem& p = bp.forward;
  extern __shared__ __align__(16) std::uint8_t smem_raw[];
  // dK/dV: the lse and D of step j's queries at j % 2, a copy per computing warpgroup
  __shared__ float2 facts[2][2][kTileRows];
  __shared__ __align__(8) std::uint64_t stage_full[kStages], stage_empty[kStages];
  const int tid = threadIdx.x;
  const BlockPlan<Keys> plan(p);
  if (plan.empty()) return;
  // The second computing warpgroup idles when its own rows are all missing.
  const bool second_idle = plan.first + 64 >= plan.own_count();
  const auto full = static_cast<std::uint32_t>(__cvta_generic_to_shared(stage_full));
  const auto empty = static_cast<std::uint32_t>(__cvta_generic_to_shared(stage_empty));
  if (tid == 0) {
    const unsigned readers = second_idle ? 4 : 8;  // the computing warps
    warpgroup::init_stages(full, empty, kStages, kCopyThreads, readers);
  }
  __syncthreads();
  const auto raw = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem_raw));
  const std::uint32_t x_s = (raw + kAlign - 1) & ~static_cast<std::uint32_t>(kAlign - 1);
  const std::uint32_t y_s = x_s + Own::kBytes, a_s = y_s + Own::kBytes,
                      b_s = a_s + kStages * Step::kBytes;

  if (tid < kCopyThreads) {
    warpgroup::registers_release<kCopyRegisters>();
    copy_steps<Keys, D>(bp, plan, x_s, y_s, a_s, b_s, tid, full, empty);
    return;
  }
  warpgroup::registers_take<kMathRegisters>();
  const int mtid = tid - kCopyThreads, warp = mtid / 32, lane = mtid % 32;
  // (broadcast from lane 0, so that ptxas sees the branches around wgmma as uniform)
  const int group = __shfl_sync(0xffffffffu, warp / 4, 0);
  if (group == 1 && second_idle) return;

  // Own rows as A operands (K-major, the warpgroup's 64 rows), step tiles as K-major B operands
  // (S, dP) and as MN-major B operands (the gradients: 16 rows per step, D columns).
  const warpgroup::Descriptor x_desc =
      warpgroup::descriptor_of(x_s + group * 64 * kBlockBytes, 16, 1024);
  const warpgroup::Descriptor y_desc =
      warpgroup::descriptor_of(y_s + group * 64 * kBlockBytes, 16, 1024);
  const warpgroup::Descriptor a_k = warpgroup::descriptor_of(a_s, 16, 1024);
  const warpgroup::Descriptor b_k = warpgroup::descriptor_of(b_s, 16, 1024);
  const warpgroup::Descriptor a_mn = warpgroup::descriptor_of(a_s, kTileRows * kBlockBytes, 1024);
  const warpgroup::Descriptor b_mn = warpgroup::descriptor_of(b_s, kTileRows * kBlockBytes, 1024);
  constexpr std::uint32_t kOwnBlock = kOwnRows * kBlockBytes, kStepBlock = kTileRows * kBlockBytes;

  const std::int64_t row0 = plan.first + warp * 16 + lane / 4;  // the thread's own rows, + 8
  const int own0 = static_cast<int>(row0);
  RowFacts own[2];  // dQ: the thread's query rows
  if (!Keys) {
    own[0] = row_facts(bp, plan.b, row0, plan.head);
    own[1] = row_facts(bp, plan.b, row0 + 8, plan.head);
  }
  float g1[NB][4], g2[Keys ? NB : 1][4];  // dK and dV, or dQ
#pragma unroll
  for (int nb = 0; nb < NB; ++nb)
#pragma unroll
    for (int e = 0; e < 4; ++e) g1[nb][e] = 0.0f;
#pragma unroll
  for (int nb = 0; nb < (Keys ? NB : 1); ++nb)
#pragma unroll
    for (int e = 0; e < 4; ++e) g2[nb][e] = 0.0f;
  const float scale_log2 = p.scale * order::kLog2e;

  // dK/dV: the first two warps of each computing warpgroup read step j + 2's lse and D (query
  // `q`) while step j runs, and store them in the warpgroup's copy after it, for step j + 1: the
  // warpgroup reads them past the named barrier that opens a step, by which all its threads have
  // left the step that read the slot before. (The warpgroups stay apart: one's P and dS beside
  // the other's MMAs.)
  const float* lse0 =
      p.lse + layout::row_offset(p, plan.b, 0, p.lse_seq_stride, p.lse_token_stride);
  const float* delta0 = bp.delta + attention_elements::delta_index(p, plan.b, 0, 0);
  const int q = mtid % 128;
  float2 next = make_float2(0.0f, 0.0f);
  const auto fetch = [&](int j) {
    if (!Keys || q >= kTileRows || j >= plan.steps) return;
    const std::int64_t i = plan.step_first(j) + q, h = plan.step_head(j);
    const bool real = i < plan.rows;
    next = make_float2(real ? lse0[i * p.lse_token_stride + h * p.lse_head_stride] : 0.0f,
                       real ? delta0[i * p.heads + h] : 0.0f);
  };
  const auto put = [&](int j) {
    if (Keys && q < kTileRows && j < plan.steps) facts[group][j % 2][q] = next;
  };
  fetch(0);
  put(0);
  fetch(1);

  for (int j = 0; j < plan.steps; ++j) {
    const int s = j % kStages;
    if (Keys) asm volatile("bar.sync %0, 128;\n" ::"r"(1 + group) : "memory");
    warpgroup::barrier_wait(full + s * 8, (j / kStages) & 1);
    warpgroup::fence_async_shared();
    const std::uint32_t at = s * Step::kBytes;
    float sc[8][4], dp[8][4];
#pragma unroll
    for (int nb = 0; nb < 8; ++nb)
#pragma unroll
      for (int e = 0; e < 4; ++e) sc[nb][e] = dp[nb][e] = 0.0f;
    warpgroup::pin(sc);
    warpgroup::pin(dp);
    warpgroup::fence();
    // d += own tile times the step's tile, over d in 16-wide steps: one group of MMAs.
    const auto products = [&](float(&d)[8][4], const warpgroup::Descriptor& own_tile,
                              const warpgroup::Descriptor& step_tile) {
#pragma unroll
      for (int kc = 0; kc < D / 16; ++kc) {
        const std::uint32_t own_at = (kc / 4) * kOwnBlock + (kc % 4) * 32;
        const std::uint32_t step_at = at + (kc / 4) * kStepBlock + (kc % 4) * 32;
        warpgroup::scores_step<T>(d, own_tile.at(own_at), step_tile.at(step_at), true);
      }
      warpgroup::commit();
    };
    products(sc, x_desc, a_k);
    products(dp, y_desc, b_k);  // (S and dP as two groups: P is computed while dP is in flight)
    // The pairs: fragment row = own row (e / 2 picks + 8), column = step row. Positions fit 31
    // bits (the host's checks). `whole`: every pair the thread holds is
    // visible (the step's first query sees past the thread's last key, or its rows see past the
    // step's last key), so the masks' selects drop out: the same values either way.
    const int t_step = static_cast<int>(plan.step_first(j));
    const auto facts_of = [&](int nb, int e) -> RowFacts {
      if constexpr (Keys) {  // (row_facts() from the copies: the same values)
        const int col = nb * 8 + 2 * (lane % 4) + e % 2;
        const float2 f = facts[group][j % 2][col];
        const int i = t_step + col;
        return {attention_backward_order::lse_log2(f.x), f.y,
                i < plan.rows ? static_cast<int>(plan.visible(i)) : 0};
      }
      return own[e / 2];
    };
    const auto seen = [&](int nb, int e) {
      if constexpr (Keys) return own0 + 8 * (e / 2) < facts_of(nb, e).visible;
      return t_step + nb * 8 + 2 * (lane % 4) + e % 2 < facts_of(nb, e).visible;
    };
    bool whole;
    if constexpr (Keys)
      whole = t_step + kTileRows <= plan.rows && own0 + 8 < plan.visible(t_step);
    else
      whole = t_step + kTileRows <= min(own[0].visible, own[1].visible);
    // f(nb, e, seen) for each of the thread's 32 pairs, `seen` a constant where `whole`.
    const auto each_pair = [&](auto&& f) {
      if (whole) {
#pragma unroll
        for (int nb = 0; nb < 8; ++nb)
#pragma unroll
          for (int e = 0; e < 4; ++e) f(nb, e, true);
      } else {
#pragma unroll
        for (int nb = 0; nb < 8; ++nb)
#pragma unroll
          for (int e = 0; e < 4; ++e) f(nb, e, seen(nb, e));
      }
    };
    warpgroup::wait<1>();
    warpgroup::pin(sc);
    each_pair([&](int nb, int e, bool v) {
      sc[nb][e] = pair_probability(v, sc[nb][e], scale_log2, facts_of(nb, e));
    });
    // acc += (P or dS) times the step tile `tile`, over its 4 steps of 16 rows ascending.
    const auto gradient = [&](float(&acc)[NB][4], const std::uint32_t(&pa)[4][4],
                              const warpgroup::Descriptor& tile) {
      warpgroup::pin(acc);
      warpgroup::fence();
#pragma unroll
      for (int c = 0; c < 4; ++c)
        warpgroup::values_step<T, D>(acc, pa[c], tile.at(at + c * 16 * kBlockBytes), true);
      warpgroup::commit();
    };
    std::uint32_t pa_p[4][4], pa_ds[4][4];
    if constexpr (Keys) {  // dV += P^T B, on the tensor cores while dS is computed
      backward_tiles::pack_a<T>(sc, pa_p);
      gradient(g2, pa_p, b_mn);
      warpgroup::wait<1>();  // dP's group (dV's may still run)
    } else {
      warpgroup::wait<0>();
    }
    warpgroup::pin(dp);
    each_pair([&](int nb, int e, bool v) {
      dp[nb][e] = pair_score_gradient(v, sc[nb][e], dp[nb][e], facts_of(nb, e));
    });
    backward_tiles::pack_a<T>(dp, pa_ds);
    gradient(g1, pa_ds, a_mn);  // dK += dS^T A, or dQ += dS A
    warpgroup::wait<0>();
    warpgroup::pin(g1);
    warpgroup::pin(g2);
    __syncwarp();
    if (lane == 0) warpgroup::barrier_arrive(empty + s * 8);  // the warp is done with stage s
    put(j + 1);
    fetch(j + 2);
  }

  const std::int64_t b = plan.b, head = plan.head;
  if constexpr (Keys) {
    store_rows<T>(bp.dk, g1, row0, plan.keys, lane, p.scale, [&](std::int64_t t) {
      return layout::kv_offset(p, b, t, bp.dk_seq_stride, bp.dk_token_stride) +
             head * bp.dk_head_stride;
    });
    store_rows<T>(bp.dv, g2, row0, plan.keys, lane, 1.0f, [&](std::int64_t t) {
      return layout::kv_offset(p, b, t, bp.dv_seq_stride, bp.dv_token_stride) +
             head * bp.dv_head_stride;
    });
  } else {
    store_rows<T>(bp.dq, g1, row0, plan.rows, lane, p.scale, [&](std::int64_t i) {
      return layout::row_offset(p, b, i, bp.dq_seq_stride, bp.dq_token_stride) +
             head * bp.dq_head_stride;
    });
  }
#elif defined(__CUDA_ARCH__)
  __trap();  // launched only where attention_warpgroups_available()
#endif
}

template <DType T, int D>
Status launch(const AttentionBackwardProblem& bp, cudaStream_t stream) {
  const AttentionProblem& p = bp.forward;
  constexpr int kBytes =
      2 * BlockTile<D, kOwnRows>::kBytes + 2 * kStages * BlockTile<D, kTileRows>::kBytes + kAlign;
  for (const Status s : {allow_dynamic_shared_memory(gradients_warpgroups<T, D, true>, kBytes),
                         allow_dynamic_shared_memory(gradients_warpgroups<T, D, false>, kBytes)})
    if (s != Status::ok) return s;
  const auto z = static_cast<unsigned>(p.sequences);
  const auto k_blocks = static_cast<unsigned>((p.max_kv_len + kOwnRows - 1) / kOwnRows);
  const auto q_blocks = static_cast<unsigned>((p.max_q_len + kOwnRows - 1) / kOwnRows);
  if (k_blocks > 0)
    gradients_warpgroups<T, D, true>
        <<<dim3(k_blocks, static_cast<unsigned>(p.kv_heads), z), kBlockThreads, kBytes, stream>>>(
            bp);
  if (q_blocks > 0)
    gradients_warpgroups<T, D, false>
        <<<dim3(q_blocks, static_cast<unsigned>(p.heads), z), kBlockThreads, kBytes, stream>>>(bp);
  return launch_status();
}

}  // namespace

Status launch_attention_backward_warpgroups(const AttentionBackwardProblem& bp,
                                            cudaStream_t stream) {
  if (!attention_warpgroups_available()) return Status::invalid_argument;
  const bool bf16 = bp.forward.dtype == DType::bf16;
  switch (bp.forward.head_dim) {
    case 64: return bf16 ? launch<DType::bf16, 64>(bp, stream) : launch<DType::f16, 64>(bp, stream);
    case 128:
      return bf16 ? launch<DType::bf16, 128>(bp, stream) : launch<DType::f16, 128>(bp, stream);
    default: return Status::invalid_argument;
  }
}

}  // namespace samebits::kernels
