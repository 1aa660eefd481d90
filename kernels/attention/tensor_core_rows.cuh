// What a thread of either tensor-core attention kernel (mma.sync or wgmma) does to its own query
// rows: the online softmax of a 64-key tile, closing a split, and the epilogue. One copy, so both
// kernels run the tensor-core order of invariant_attention_order.h on the same instructions.
#pragma once

#include <cstdint>

#include "kernels/attention/attention_layout.h"
#include "kernels/attention/invariant_attention.h"
#include "kernels/attention/invariant_attention_order.h"
#include "kernels/attention/out_stage.cuh"
#include "kernels/attention/row_quotient.cuh"
#include "kernels/attention/split_merge.h"
#include "kernels/common/mma_instructions.cuh"

namespace samebits::kernels::tensor_core {

namespace order = attention_order;
namespace layout = attention_layout;

constexpr unsigned kFull = 0xffffffffu;

// One query row's running state. A thread holds 2 MT rows: fragment rows lane/4 and lane/4 + 8
// of each of its warp's m16 tiles (the accumulator layout of mma.sync and of wgmma alike).
struct RowState {
  float m = -INFINITY, l = 0.0f;
};

// Online softmax per row (step 2 of the tensor-core order) of the scores s of the 64-key tile at
// t0 (past the block's first key): n[k] is row k's visible keys past that key. P, rounded to the
// input type, comes out as the A operand of 4 MMA steps of 16 keys; alpha and live per row. s is
// only read (the wgmma kernel's next scores may be landing in registers the compiler pairs with
// it). Per score, in the common case (every key visible, a row's max moved by less than the
// slack): a max, a fused multiply-add, the SFU's exp2 and an add. The thread's rows go through
// each phase together, on one path chosen for the warp (every key of every row visible, or the
// masked path that gives the same values for all), so that their chains of dependent
// instructions interleave; a row's max is a tree (a max is exact, so its order changes nothing).
template <DType T, int MT>
__device__ __forceinline__ void online_softmax(const float (&s)[MT][8][4], int t0, int lane,
                                               float scale_log2, const int (&n)[2 * MT],
                                               RowState (&cur)[2 * MT], float (&alpha)[2 * MT],
                                               bool (&live)[2 * MT],
                                               std::uint32_t (&pa)[MT][4][4]) {
  constexpr int kKeys = static_cast<int>(order::kKeyTile);
  float x[MT][8][4];  // the probabilities
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {  // the rows of an m16 tile: rows 2 mt (h = 0) and 2 mt + 1
    const float(&sm)[8][4] = s[mt];
    float(&xm)[8][4] = x[mt];
    int visible[2];
    bool every = true;  // every key of both rows visible
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int k = 2 * mt + r, left = n[k] - t0;
      visible[r] = left <= 0 ? 0 : (left >= kKeys ? kKeys : left);
      live[k] = visible[r] > 0;
      every = every && visible[r] == kKeys;
    }
    const bool whole = __all_sync(kFull, every);  // (the warp's path)
    auto seen = [&](int r, int nb, int e) { return nb * 8 + 2 * (lane % 4) + e < visible[r]; };

    // The largest visible score of each row (-inf where none is, NaN ignored).
    float top[2];
    if (whole) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        float m8[8];
#pragma unroll
        for (int nb = 0; nb < 8; ++nb) m8[nb] = fmaxf(sm[nb][2 * r], sm[nb][2 * r + 1]);
#pragma unroll
        for (int w = 4; w >= 1; w /= 2)
#pragma unroll
          for (int i = 0; i < w; ++i) m8[i] = fmaxf(m8[i], m8[i + w]);
        top[r] = fmaxf(m8[0], -INFINITY);  // (all NaN: -inf, as the masked path gives)
      }
    } else {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        top[r] = -INFINITY;
#pragma unroll
        for (int nb = 0; nb < 8; ++nb)
#pragma unroll
          for (int e = 0; e < 2; ++e)
            if (seen(r, nb, e)) top[r] = fmaxf(top[r], sm[nb][2 * r + e]);
      }
    }
    // Rounding is monotonic, so for a positive scale (the only kind the tensor cores take:
    // attention_tensor_cores_supported) the largest rounded product is the largest score's
    // product: one multiply per row instead of one per score. Then the quad's max.
    float tile_max[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) tile_max[r] = top[r] * scale_log2;
#pragma unroll
    for (int r = 0; r < 2; ++r)
      tile_max[r] = fmaxf(tile_max[r], __shfl_xor_sync(kFull, tile_max[r], 1));
#pragma unroll
    for (int r = 0; r < 2; ++r)
      tile_max[r] = fmaxf(tile_max[r], __shfl_xor_sync(kFull, tile_max[r], 2));
    // The row's m moves only past the slack (else P's exponents stay within it, and acc and l
    // need no rescale: alpha = 1).
    float m_new[2], neg_m[2];
    bool none[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int k = 2 * mt + r;
      const float top_all = fmaxf(cur[k].m, tile_max[r]) + 0.0f;
      const bool moved = top_all > cur[k].m + order::kTensorCoreMaxSlack;
      m_new[r] = moved ? top_all : cur[k].m;
      none[r] = m_new[r] == -INFINITY;
      alpha[k] = moved ? exp2_mufu(cur[k].m - m_new[r]) : 1.0f;
      neg_m[r] = -m_new[r];
    }
    // Each 8-key block's probabilities, then at once their leaves of the row sums and (every
    // second block) their packing into P, so that the adds and conversions sit between the
    // SFU's exp2s, which issue one per 8 cycles on a scheduler, rather than after all of them.
    // The same operations in the same order for each value.
    float sum[2];
    auto consume = [&](int nb) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const float leaf = xm[nb][2 * r] + xm[nb][2 * r + 1];
        sum[r] = nb == 0 ? leaf : sum[r] + leaf;
      }
      if (nb % 2 == 1) {
        const int c = nb / 2;
        pa[mt][c][0] = pack_pair<T>(xm[2 * c][0], xm[2 * c][1]);
        pa[mt][c][1] = pack_pair<T>(xm[2 * c][2], xm[2 * c][3]);
        pa[mt][c][2] = pack_pair<T>(xm[2 * c + 1][0], xm[2 * c + 1][1]);
        pa[mt][c][3] = pack_pair<T>(xm[2 * c + 1][2], xm[2 * c + 1][3]);
      }
    };
    if (whole && !__any_sync(kFull, none[0] || none[1])) {  // (the same values, no selects)
#pragma unroll
      for (int nb = 0; nb < 8; ++nb) {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          xm[nb][e] = exp2_mufu(fmaf(sm[nb][e], scale_log2, neg_m[e / 2]));
        consume(nb);
      }
    } else {
#pragma unroll
      for (int nb = 0; nb < 8; ++nb) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const float v = exp2_mufu(fmaf(sm[nb][e], scale_log2, neg_m[e / 2]));
          xm[nb][e] = !none[e / 2] && seen(e / 2, nb, e % 2) ? v : 0.0f;
        }
        consume(nb);
      }
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) sum[r] = sum[r] + __shfl_xor_sync(kFull, sum[r], 1);
#pragma unroll
    for (int r = 0; r < 2; ++r) sum[r] = sum[r] + __shfl_xor_sync(kFull, sum[r], 2);
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int k = 2 * mt + r;
      if (live[k]) {
        cur[k].l = fmaf(cur[k].l, alpha[k], sum[r]);
        cur[k].m = m_new[r];
      }
    }
  }
}

// acc = acc * alpha per row, before the tile's P V is accumulated onto it (step 2's last line;
// alpha = 1 for a row with no visible key in the tile, whose P is all +0). Skipped when every
// alpha of the warp is 1 (the running max unchanged, as it mostly is past the first tiles): a
// multiply by 1 is exact, so skipping it changes no bit.
template <int MT, int NB>
__device__ __forceinline__ void rescale(float (&acc)[MT][NB][4], const float (&alpha)[2 * MT]) {
  bool ones = true;
#pragma unroll
  for (int k = 0; k < 2 * MT; ++k) ones = ones && alpha[k] == 1.0f;
  if (__all_sync(kFull, ones)) return;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int nb = 0; nb < NB; ++nb)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mt][nb][e] = acc[mt][nb][e] * alpha[2 * mt + e / 2];
}

// The merged state of a row's earlier splits, kept per thread in shared memory or the border
// workspace (float i of thread t at i * Threads + t: acc, then m and l), merged with the split
// just finished (step 3), or taken as it is for the row's first split. Loads go before stores, a
// column block at a time, so that global memory's latency is paid once per block.
template <int Threads, int MT, int NB>
__device__ void close_split(float* __restrict__ run_s, int tid, float (&acc)[MT][NB][4],
                            const RowState (&cur)[2 * MT], const int (&n)[2 * MT],
                            int split_begin) {
  const bool first_split = split_begin == 0;
  float* __restrict__ run_ml = run_s + MT * NB * 4 * Threads;
  order::MergeFactors f[2 * MT];
  bool has[2 * MT];
#pragma unroll
  for (int k = 0; k < 2 * MT; ++k) {
    has[k] = n[k] > split_begin;  // else the row has no key in this split
    f[k] = {1.0f, 1.0f};
    float m = cur[k].m, l = cur[k].l;
    if (has[k] && !first_split) {
      m = run_ml[(2 * k) * Threads + tid];
      l = run_ml[(2 * k + 1) * Threads + tid];
      f[k] = order::merge_factors(m, l, cur[k].m, cur[k].l);
    }
    if (has[k]) {
      run_ml[(2 * k) * Threads + tid] = m;
      run_ml[(2 * k + 1) * Threads + tid] = l;
    }
  }
#pragma unroll
  for (int nb = 0; nb < NB; ++nb) {
    float old[MT][4];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        old[mt][e] = first_split ? 0.0f : run_s[((mt * NB + nb) * 4 + e) * Threads + tid];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int k = 2 * mt + e / 2;
        if (!has[k]) continue;
        const float a = acc[mt][nb][e];
        run_s[((mt * NB + nb) * 4 + e) * Threads + tid] =
            first_split ? a : order::merge_acc(old[mt][e], a, f[k]);
      }
  }
}

// Whole mode, a block whose keys crossed a split border: the state of all its splits, its last
// split (acc, cur) merged onto the earlier ones' (as close_split would) in registers, into
// `merged` and `mcur`: nothing is stored, and acc stays where its MMAs write it.
template <int Threads, int MT, int NB>
__device__ __forceinline__ void merge_last(const float* __restrict__ run_s, int tid,
                                           const float (&acc)[MT][NB][4],
                                           const RowState (&cur)[2 * MT], const int (&n)[2 * MT],
                                           std::int64_t end, float (&merged)[MT][NB][4],
                                           RowState (&mcur)[2 * MT]) {
  const int split_begin =
      static_cast<int>((end - 1) / order::kTensorCoreSplitKeys * order::kTensorCoreSplitKeys);
  const float* __restrict__ run_ml = run_s + MT * NB * 4 * Threads;
  order::MergeFactors f[2 * MT];
  bool has[2 * MT];
#pragma unroll
  for (int k = 0; k < 2 * MT; ++k) {
    has[k] = n[k] > split_begin;  // else the row has no key in the last split
    float m = run_ml[(2 * k) * Threads + tid], l = run_ml[(2 * k + 1) * Threads + tid];
    f[k] = {1.0f, 1.0f};
    if (has[k]) f[k] = order::merge_factors(m, l, cur[k].m, cur[k].l);
    mcur[k] = RowState{m, l};
  }
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int nb = 0; nb < NB; ++nb)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int k = 2 * mt + e / 2;
        const float old = run_s[((mt * NB + nb) * 4 + e) * Threads + tid];
        merged[mt][nb][e] = has[k] ? order::merge_acc(old, acc[mt][nb][e], f[k]) : old;
      }
}

// The rows a block holds and the keys it visits (BlockRows in tensor_core_tiles.cuh), as the
// epilogue needs them. Staged (the wgmma prefill, MT = 1, out's rows 16-byte aligned): out's rows
// through the warp's stage in shared memory (out_stage.cuh).
template <class Rows, int MT, int NB, bool Staged = false>
struct RowEpilogue {
  const AttentionProblem& p;
  const Rows& rows;
  std::int64_t splits;
  int lane, col0;           // the thread's lane and its warp's first output column
  std::uint32_t stage = 0;  // (Staged) the warp's stage

  // Split mode: the split's partial per row that has keys in it, for the merge launch. row(k) is
  // the block row of the thread's row k.
  template <class RowOf>
  __device__ void partials(const float (&acc)[MT][NB][4], const RowState (&cur)[2 * MT],
                           const int (&n)[2 * MT], RowOf row) const {
    const std::int64_t s_index = rows.split;
#pragma unroll
    for (int k = 0; k < 2 * MT; ++k) {
      if (n[k] == 0) continue;  // no key in this split
      const int r = row(k);
      float* slot = p.workspace +
                    split_partial_offset(p, splits, rows.b, rows.token(r), rows.head(r), s_index);
      if (lane % 4 == 0 && col0 == 0) {
        slot[0] = cur[k].m;
        slot[1] = cur[k].l;
      }
#pragma unroll
      for (int nb = 0; nb < NB; ++nb) {
        const int col = col0 + nb * 8 + 2 * (lane % 4), h = 2 * (k % 2);
        *reinterpret_cast<float2*>(slot + 2 + col) =
            make_float2(acc[k / 2][nb][h], acc[k / 2][nb][h + 1]);
      }
    }
  }

  // Whole mode, step 4: out and lse of each of the thread's rows. out = order::output(acc, l) by
  // RowQuotient where every value the thread stores is in its range (one check per thread, so
  // that the quotients have no branch each), else by the division itself: the same bits. The
  // rows' addresses are worked out first, each once, so that no load waits behind a store.
  template <DType T, class RowOf>
  __device__ void outputs(const float (&acc)[MT][NB][4], const RowState (&cur)[2 * MT],
                          RowOf row) const {
    const OutRows at = out_rows(row);
    bool quick = true;
    MagnitudeSpan span;
#pragma unroll
    for (int k = 0; k < 2 * MT; ++k) {
      // (four spans a row, so that their chains of min and max interleave)
      MagnitudeSpan part[4];
      const int h = 2 * (k % 2);
#pragma unroll
      for (int nb = 0; nb < NB; ++nb) {
        part[nb % 4].add(acc[k / 2][nb][h]);
        part[nb % 4].add(acc[k / 2][nb][h + 1]);
      }
      part[0].add(part[1]);
      part[2].add(part[3]);
      part[0].add(part[2]);
      if (!at.out[k]) continue;  // (past the sequence's end: not stored)
      quick = quick && RowQuotient::usable(cur[k].l);
      span.add(part[0]);
    }
    quick = quick && span.in_range();
    // (a stage's stores are the warp's together, stmatrix's .sync.aligned: one path for the warp,
    // the division for all where one thread's values need it)
    if constexpr (Staged) quick = __all_sync(kFull, quick);
    if (quick) {
      store<T>(acc, cur, at, [](const RowQuotient& q, float a) { return q.of(a); });
    } else {
      store<T>(acc, cur, at, [](const RowQuotient& q, float a) { return order::output(a, q.l); });
    }
  }

  // Whole mode: step 4 after the last split is merged onto the earlier ones, where the block's
  // keys crossed a split border (the earlier splits' state in run_s, as close_split left it).
  template <DType T, int Threads, class RowOf>
  __device__ void whole(const float* __restrict__ run_s, int tid, const float (&acc)[MT][NB][4],
                        const RowState (&cur)[2 * MT], const int (&n)[2 * MT], RowOf row) const {
    if (rows.end > order::kTensorCoreSplitKeys) {
      float merged[MT][NB][4];
      RowState mcur[2 * MT];
      merge_last<Threads, MT, NB>(run_s, tid, acc, cur, n, rows.end, merged, mcur);
      outputs<T>(merged, mcur, row);
    } else {
      outputs<T>(acc, cur, row);
    }
  }

  // Where each of the thread's rows of out and lse starts (out nullptr past the sequence's end).
  struct OutRows {
    std::uint16_t* out[2 * MT];
    float* lse[2 * MT];
  };
  template <class RowOf>
  __device__ OutRows out_rows(RowOf row) const {
    OutRows at;
#pragma unroll
    for (int k = 0; k < 2 * MT; ++k) {
      const int r = row(k);
      const std::int64_t i = rows.token(r), head = rows.head(r);
      const bool valid = i < rows.q_len;
      at.out[k] = valid
                      ? static_cast<std::uint16_t*>(p.out) +
                            layout::row_offset(p, rows.b, i, p.out_seq_stride, p.out_token_stride) +
                            head * p.out_head_stride
                      : nullptr;
      at.lse[k] = valid && p.lse
                      ? p.lse +
                            layout::row_offset(p, rows.b, i, p.lse_seq_stride, p.lse_token_stride) +
                            head * p.lse_head_stride
                      : nullptr;
    }
    return at;
  }

  template <DType T, class Divide>
  __device__ void store(const float (&acc)[MT][NB][4], const RowState (&cur)[2 * MT],
                        const OutRows& at, Divide divide) const {
    if constexpr (Staged) {
      static_assert(MT == 1, "a stage holds a warp's 16 rows");
      store_staged<T>(acc, cur, at, divide);
    } else {
#pragma unroll
      for (int k = 0; k < 2 * MT; ++k) {
        const int h = 2 * (k % 2);
        if (!at.out[k]) continue;
        const RowQuotient quotient(cur[k].l);
#pragma unroll
        for (int nb = 0; nb < NB; ++nb) {
          const int col = col0 + nb * 8 + 2 * (lane % 4);
          // (the hardware's round-to-nearest-even conversion: the bits of order::to_*_bits, NaN
          // included, in one instruction for the pair)
          *reinterpret_cast<std::uint32_t*>(at.out[k] + col) = pack_pair<T>(
              divide(quotient, acc[k / 2][nb][h]), divide(quotient, acc[k / 2][nb][h + 1]));
        }
        store_lse(at, cur, k);
      }
    }
  }

  __device__ void store_lse(const OutRows& at, const RowState (&cur)[2 * MT], int k) const {
    if (at.lse[k] && lane % 4 == 0 && col0 == 0) *at.lse[k] = order::lse(cur[k].m, cur[k].l);
  }

  // store() through the warp's stage (out_stage.cuh): the same values, stored as whole 16-byte
  // chunks of each row rather than 4-byte pairs.
  template <DType T, class Divide>
  __device__ void store_staged(const float (&acc)[MT][NB][4], const RowState (&cur)[2 * MT],
                               const OutRows& at, Divide divide) const {
    const RowQuotient q0(cur[0].l), q1(cur[1].l);
    std::uint32_t pairs[2][NB];  // row k's columns nb * 8 + 2 (lane % 4) and + 1
#pragma unroll
    for (int nb = 0; nb < NB; ++nb) {
      pairs[0][nb] = pack_pair<T>(divide(q0, acc[0][nb][0]), divide(q0, acc[0][nb][1]));
      pairs[1][nb] = pack_pair<T>(divide(q1, acc[0][nb][2]), divide(q1, acc[0][nb][3]));
    }
    out_stage::store_rows<NB>(stage, lane, pairs, at.out);
    store_lse(at, cur, 0);
    store_lse(at, cur, 1);
  }
};

}  // namespace samebits::kernels::tensor_core
