// The attention backward's exact path on CUDA, no atomics: a dQ launch (a warp per query row and
// head, keys ascending), then a dK/dV launch (a warp per key and KV head, (head, query) ascending).
#include <cuda_fp16.h>

#include "kernels/attention/attention_backward_tensor_cores.h"
#include "kernels/attention/attention_layout.h"
#include "kernels/attention/element_access.cuh"
#include "kernels/attention/invariant_attention_backward.h"
#include "kernels/attention/invariant_attention_backward_order.h"
#include "kernels/common/cuda_status.h"

namespace samebits::kernels {
namespace {

namespace order = attention_order;
namespace border = attention_backward_order;
namespace layout = attention_layout;

constexpr int kWarps = 4;  // rows (dQ) or keys (dK/dV) per block
constexpr int kTile = 64;  // the rows or keys whose dots a warp computes at once, 2 per lane
constexpr unsigned kFull = 0xffffffffu;

using attention_elements::load;

// acc * scale rounded to the input type.
template <DType T>
__device__ __forceinline__ void store(void* base, std::int64_t index, float acc, float scale) {
  const unsigned f = __float_as_uint(acc * scale);
  static_cast<std::uint16_t*>(base)[index] =
      T == DType::bf16 ? order::to_bfloat16_bits(f) : order::to_float16_bits(f);
}

// dot(a, b) over j ascending, a in shared memory, b a 16-bit row in global memory.
template <DType T, int D>
__device__ float dot(const float* a, const void* b, std::int64_t at) {
  float s = 0.0f;
  for (int j = 0; j < D; ++j) s = fmaf(a[j], load<T>(b, at + j), s);
  return s;
}

using attention_elements::delta_index;

// P and dS of one (row, key) pair, from the row's q and dO (shared) and the key's k and v.
struct Pair {
  float p = 0.0f, ds = 0.0f;
};

// dQ_i for the warp's row: D_i first (into the workspace for the dK/dV launch), then the keys
// [0, n) in tiles of 64 whose dots the lanes share, each tile's dS_it added in key order.
template <DType T, int D>
__global__ void __launch_bounds__(kWarps * 32) attention_dq(AttentionBackwardProblem bp) {
  __shared__ float q_s[kWarps][D], dout_s[kWarps][D], out_s[kWarps][D];
  const AttentionProblem& p = bp.forward;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::int64_t b = blockIdx.z, h = blockIdx.y;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kWarps + warp;
  if (i >= layout::q_len(p, b)) return;  // the whole warp; no block-wide barrier follows
  const std::int64_t g = h / (p.heads / p.kv_heads);
  const std::int64_t q_at =
      layout::row_offset(p, b, i, p.q_seq_stride, p.q_token_stride) + h * p.q_head_stride;
  const std::int64_t do_at = layout::row_offset(p, b, i, bp.dout_seq_stride, bp.dout_token_stride) +
                             h * bp.dout_head_stride;
  const std::int64_t o_at =
      layout::row_offset(p, b, i, p.out_seq_stride, p.out_token_stride) + h * p.out_head_stride;
  for (int j = lane; j < D; j += 32) {
    q_s[warp][j] = load<T>(p.q, q_at + j);
    dout_s[warp][j] = load<T>(bp.dout, do_at + j);
    out_s[warp][j] = load<T>(p.out, o_at + j);
  }
  __syncwarp();
  float delta = lane == 0 ? border::row_delta(dout_s[warp], out_s[warp], D) : 0.0f;
  delta = __shfl_sync(kFull, delta, 0);
  if (lane == 0) bp.delta[delta_index(p, b, i, h)] = delta;
  const float lse2 =
      border::lse_log2(p.lse[layout::row_offset(p, b, i, p.lse_seq_stride, p.lse_token_stride) +
                             h * p.lse_head_stride]);
  const float scale_log2 = p.scale * order::kLog2e;
  const std::int64_t n = layout::visible_keys(p, b, i);
  float acc[D / 32];
  for (int r = 0; r < D / 32; ++r) acc[r] = 0.0f;
  for (std::int64_t tile = 0; tile < n; tile += kTile) {
    float ds[2];
    for (int e = 0; e < 2; ++e) {
      const std::int64_t t = tile + 2 * lane + e;
      ds[e] = 0.0f;
      if (t >= n) continue;
      const std::int64_t k_at =
          layout::kv_offset(p, b, t, p.k_page_stride, p.k_token_stride) + g * p.k_head_stride;
      const std::int64_t v_at =
          layout::kv_offset(p, b, t, p.v_page_stride, p.v_token_stride) + g * p.v_head_stride;
      const float x = dot<T, D>(q_s[warp], p.k, k_at) * scale_log2;
      const float prob = border::probability_from_lse(x, lse2);
      ds[e] = border::score_gradient(prob, dot<T, D>(dout_s[warp], p.v, v_at), delta);
    }
    const int visible = n - tile < kTile ? static_cast<int>(n - tile) : kTile;
    for (int c = 0; c < visible; ++c) {
      const float d0 = __shfl_sync(kFull, ds[0], c / 2), d1 = __shfl_sync(kFull, ds[1], c / 2);
      const float dsc = (c & 1) ? d1 : d0;
      const std::int64_t k_at =
          layout::kv_offset(p, b, tile + c, p.k_page_stride, p.k_token_stride) +
          g * p.k_head_stride;
      for (int r = 0; r < D / 32; ++r)
        acc[r] = fmaf(dsc, load<T>(p.k, k_at + lane + 32 * r), acc[r]);
    }
  }
  const std::int64_t dq_at =
      layout::row_offset(p, b, i, bp.dq_seq_stride, bp.dq_token_stride) + h * bp.dq_head_stride;
  for (int r = 0; r < D / 32; ++r) store<T>(bp.dq, dq_at + lane + 32 * r, acc[r], p.scale);
}

// dK_t and dV_t for the warp's key: over the group's heads ascending, then the queries that see
// t ascending, in tiles of 64 whose dots the lanes share, each tile's terms added in query order.
template <DType T, int D>
__global__ void __launch_bounds__(kWarps * 32) attention_dkdv(AttentionBackwardProblem bp) {
  __shared__ float k_s[kWarps][D], v_s[kWarps][D];
  const AttentionProblem& p = bp.forward;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::int64_t b = blockIdx.z, g = blockIdx.y;
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * kWarps + warp;
  const std::int64_t keys = layout::kv_len(p, b), rows = layout::q_len(p, b);
  if (t >= keys) return;
  const std::int64_t k_at =
      layout::kv_offset(p, b, t, p.k_page_stride, p.k_token_stride) + g * p.k_head_stride;
  const std::int64_t v_at =
      layout::kv_offset(p, b, t, p.v_page_stride, p.v_token_stride) + g * p.v_head_stride;
  for (int j = lane; j < D; j += 32) {
    k_s[warp][j] = load<T>(p.k, k_at + j);
    v_s[warp][j] = load<T>(p.v, v_at + j);
  }
  __syncwarp();
  const float scale_log2 = p.scale * order::kLog2e;
  const std::int64_t group = p.heads / p.kv_heads;
  // The first query that sees t (causal: position >= t); the visibility test below decides.
  const std::int64_t first = p.causal && t - keys + rows > 0 ? t - keys + rows : 0;
  float acc_k[D / 32], acc_v[D / 32];
  for (int r = 0; r < D / 32; ++r) acc_k[r] = acc_v[r] = 0.0f;
  for (std::int64_t h = g * group; h < (g + 1) * group; ++h) {
    for (std::int64_t tile = first; tile < rows; tile += kTile) {
      Pair pr[2];
      for (int e = 0; e < 2; ++e) {
        const std::int64_t i = tile + 2 * lane + e;
        if (i >= rows || t >= layout::visible_keys(p, b, i)) continue;
        const std::int64_t q_at =
            layout::row_offset(p, b, i, p.q_seq_stride, p.q_token_stride) + h * p.q_head_stride;
        const std::int64_t do_at =
            layout::row_offset(p, b, i, bp.dout_seq_stride, bp.dout_token_stride) +
            h * bp.dout_head_stride;
        const float lse2 = border::lse_log2(
            p.lse[layout::row_offset(p, b, i, p.lse_seq_stride, p.lse_token_stride) +
                  h * p.lse_head_stride]);
        // dot(q_i, k_t) as the forward's: q's element first, over j ascending.
        float s = 0.0f, dp = 0.0f;
        for (int j = 0; j < D; ++j) s = fmaf(load<T>(p.q, q_at + j), k_s[warp][j], s);
        for (int j = 0; j < D; ++j) dp = fmaf(load<T>(bp.dout, do_at + j), v_s[warp][j], dp);
        pr[e].p = border::probability_from_lse(s * scale_log2, lse2);
        pr[e].ds = border::score_gradient(pr[e].p, dp, bp.delta[delta_index(p, b, i, h)]);
      }
      const int count = rows - tile < kTile ? static_cast<int>(rows - tile) : kTile;
      for (int c = 0; c < count; ++c) {
        const int e = c & 1;
        const float pc = __shfl_sync(kFull, pr[e].p, c / 2);
        const float dsc = __shfl_sync(kFull, pr[e].ds, c / 2);
        const std::int64_t i = tile + c;
        if (t >= layout::visible_keys(p, b, i)) continue;  // the same for every lane
        const std::int64_t q_at =
            layout::row_offset(p, b, i, p.q_seq_stride, p.q_token_stride) + h * p.q_head_stride;
        const std::int64_t do_at =
            layout::row_offset(p, b, i, bp.dout_seq_stride, bp.dout_token_stride) +
            h * bp.dout_head_stride;
        for (int r = 0; r < D / 32; ++r) {
          acc_k[r] = fmaf(dsc, load<T>(p.q, q_at + lane + 32 * r), acc_k[r]);
          acc_v[r] = fmaf(pc, load<T>(bp.dout, do_at + lane + 32 * r), acc_v[r]);
        }
      }
    }
  }
  const std::int64_t dk_at =
      layout::kv_offset(p, b, t, bp.dk_seq_stride, bp.dk_token_stride) + g * bp.dk_head_stride;
  const std::int64_t dv_at =
      layout::kv_offset(p, b, t, bp.dv_seq_stride, bp.dv_token_stride) + g * bp.dv_head_stride;
  for (int r = 0; r < D / 32; ++r) {
    store<T>(bp.dk, dk_at + lane + 32 * r, acc_k[r], p.scale);
    store<T>(bp.dv, dv_at + lane + 32 * r, acc_v[r], 1.0f);
  }
}

template <DType T, int D>
void launch_dim(const AttentionBackwardProblem& bp, cudaStream_t stream) {
  const AttentionProblem& p = bp.forward;
  const dim3 block(kWarps * 32);
  const auto z = static_cast<unsigned>(p.sequences);
  const auto row_blocks = static_cast<unsigned>((p.max_q_len + kWarps - 1) / kWarps);
  const auto key_blocks = static_cast<unsigned>((p.max_kv_len + kWarps - 1) / kWarps);
  if (row_blocks > 0)
    attention_dq<T, D>
        <<<dim3(row_blocks, static_cast<unsigned>(p.heads), z), block, 0, stream>>>(bp);
  if (key_blocks > 0)
    attention_dkdv<T, D>
        <<<dim3(key_blocks, static_cast<unsigned>(p.kv_heads), z), block, 0, stream>>>(bp);
}

template <DType T>
void launch(const AttentionBackwardProblem& bp, cudaStream_t stream) {
  switch (bp.forward.head_dim) {
    case 64: launch_dim<T, 64>(bp, stream); break;
    case 128: launch_dim<T, 128>(bp, stream); break;
    default: launch_dim<T, 256>(bp, stream); break;
  }
}

}  // namespace

Status invariant_attention_backward_cuda(const AttentionBackwardProblem& bp, cudaStream_t stream) {
  if (const Status s = attention_backward_check(bp); s != Status::ok) return s;
  const AttentionProblem& p = bp.forward;
  if (p.sequences == 0) return Status::ok;
  if (p.max_kv_len < 0) return Status::invalid_argument;
  if ((p.max_q_len + kWarps - 1) / kWarps > 0x7fffffff ||
      (p.max_kv_len + kWarps - 1) / kWarps > 0x7fffffff)
    return Status::invalid_argument;
  const std::int64_t delta_floats = attention_backward_delta_floats(bp);
  if (bp.delta_floats < delta_floats || (delta_floats > 0 && !bp.delta))
    return Status::workspace_too_small;
  if (p.algorithm == AttentionAlgorithm::tensor_cores)
    return invariant_attention_backward_tensor_cores_cuda(bp, stream);
  if (p.dtype == DType::bf16) {
    launch<DType::bf16>(bp, stream);
  } else {
    launch<DType::f16>(bp, stream);
  }
  return launch_status();
}

}  // namespace samebits::kernels
