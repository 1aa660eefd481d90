// The invariant attention on CUDA: one warp per query row and head, splits and tiles at absolute
// key positions in the order of invariant_attention_order.h, so the twin's bits. A first, plain
// (no tensor core) version: correct and invariant; the fast path comes after it.
#include <cuda_fp16.h>

#include "kernels/attention/attention_layout.h"
#include "kernels/attention/invariant_attention.h"
#include "kernels/attention/invariant_attention_order.h"

namespace samebits::kernels {
namespace {

namespace order = attention_order;
namespace layout = attention_layout;

constexpr int kWarps = 4;  // query rows per block
constexpr unsigned kFull = 0xffffffffu;

template <DType T>
__device__ __forceinline__ float load(const std::uint16_t* base, std::int64_t index) {
  const std::uint16_t bits = base[index];
  if constexpr (T == DType::bf16) {
    return __uint_as_float(static_cast<unsigned>(bits) << 16);
  } else {
    return __half2float(__ushort_as_half(bits));
  }
}

template <DType T>
__device__ __forceinline__ std::uint16_t to_bits(float value) {
  const unsigned f = __float_as_uint(value);
  return T == DType::bf16 ? order::to_bfloat16_bits(f) : order::to_float16_bits(f);
}

// x[c] for key c of the tile: the dot product over j ascending, then the scale.
template <DType T, int D>
__device__ float score(const AttentionProblem& p, const float* q, std::int64_t b, std::int64_t g,
                       std::int64_t t) {
  const auto* k = static_cast<const std::uint16_t*>(p.k) +
                  layout::kv_offset(p, b, t, p.k_page_stride, p.k_token_stride) +
                  g * p.k_head_stride;
  float s = 0.0f;
  for (int j = 0; j < D; ++j) s = fmaf(q[j], load<T>(k, j), s);
  return s;
}

template <DType T, int D>
__global__ void __launch_bounds__(kWarps * 32) attention_rows(AttentionProblem p) {
  constexpr int kPerLane = D / 32;
  __shared__ float q_shared[kWarps][D];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::int64_t b = blockIdx.z, h = blockIdx.y;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kWarps + warp;
  if (i >= layout::q_len(p, b)) return;  // the whole warp; no block-wide barrier follows
  const std::int64_t g = h / (p.heads / p.kv_heads);
  const float scale_log2 = p.scale * order::kLog2e;
  float* q = q_shared[warp];
  const auto* q_row = static_cast<const std::uint16_t*>(p.q) +
                      layout::row_offset(p, b, i, p.q_seq_stride, p.q_token_stride) +
                      h * p.q_head_stride;
  for (int j = lane; j < D; j += 32) q[j] = load<T>(q_row, j);
  __syncwarp();

  const auto* v = static_cast<const std::uint16_t*>(p.v);
  const std::int64_t n = layout::visible_keys(p, b, i);
  float run_m = -INFINITY, run_l = 0.0f, run_acc[kPerLane];
  for (int r = 0; r < kPerLane; ++r) run_acc[r] = 0.0f;
  for (std::int64_t split = 0; split < n; split += order::kSplitKeys) {
    const std::int64_t end = split + order::kSplitKeys < n ? split + order::kSplitKeys : n;
    float m = -INFINITY, l = 0.0f, acc[kPerLane];
    for (int r = 0; r < kPerLane; ++r) acc[r] = 0.0f;
    for (std::int64_t tile = split; tile < end; tile += order::kKeyTile) {
      const std::int64_t t0 = tile + 2 * lane, t1 = t0 + 1;
      const float x0 = t0 < end ? score<T, D>(p, q, b, g, t0) * scale_log2 : -INFINITY;
      const float x1 = t1 < end ? score<T, D>(p, q, b, g, t1) * scale_log2 : -INFINITY;
      float tile_max = fmaxf(x0, x1);
      for (int off = 16; off >= 1; off /= 2) {
        tile_max = fmaxf(tile_max, __shfl_xor_sync(kFull, tile_max, off));
      }
      const float m_new = fmaxf(m, tile_max) + 0.0f;
      const float alpha = order::rescale(m, m_new);
      const float p0 = t0 < end ? order::probability(x0, m_new) : 0.0f;
      const float p1 = t1 < end ? order::probability(x1, m_new) : 0.0f;
      float leaf = p0 + p1;
      for (int off = 16; off >= 1; off /= 2) leaf = leaf + __shfl_xor_sync(kFull, leaf, off);
      const float l_scaled = l * alpha;
      l = l_scaled + leaf;
      m = m_new;
      float pv[kPerLane];
      for (int r = 0; r < kPerLane; ++r) pv[r] = 0.0f;
      const int visible = end - tile < order::kKeyTile ? static_cast<int>(end - tile)
                                                       : static_cast<int>(order::kKeyTile);
      for (int c = 0; c < visible; ++c) {
        const float pc0 = __shfl_sync(kFull, p0, c / 2), pc1 = __shfl_sync(kFull, p1, c / 2);
        const float pc = (c & 1) ? pc1 : pc0;
        const std::int64_t at =
            layout::kv_offset(p, b, tile + c, p.v_page_stride, p.v_token_stride) +
            g * p.v_head_stride;
        for (int r = 0; r < kPerLane; ++r) pv[r] = fmaf(pc, load<T>(v, at + lane + 32 * r), pv[r]);
      }
      for (int r = 0; r < kPerLane; ++r) {
        const float scaled = acc[r] * alpha;
        acc[r] = scaled + pv[r];
      }
    }
    if (split == 0) {
      run_m = m;
      run_l = l;
      for (int r = 0; r < kPerLane; ++r) run_acc[r] = acc[r];
      continue;
    }
    const order::MergeFactors f = order::merge_factors(run_m, run_l, m, l);
    for (int r = 0; r < kPerLane; ++r) run_acc[r] = order::merge_acc(run_acc[r], acc[r], f);
  }
  auto* out = static_cast<std::uint16_t*>(p.out) +
              layout::row_offset(p, b, i, p.out_seq_stride, p.out_token_stride) +
              h * p.out_head_stride;
  for (int r = 0; r < kPerLane; ++r)
    out[lane + 32 * r] = to_bits<T>(order::output(run_acc[r], run_l));
  if (p.lse && lane == 0) {
    p.lse[layout::row_offset(p, b, i, p.lse_seq_stride, p.lse_token_stride) +
          h * p.lse_head_stride] = order::lse(run_m, run_l);
  }
}

template <DType T>
void launch(const AttentionProblem& p, dim3 grid, cudaStream_t stream) {
  const dim3 block(kWarps * 32);
  switch (p.head_dim) {
    case 64: attention_rows<T, 64><<<grid, block, 0, stream>>>(p); break;
    case 128: attention_rows<T, 128><<<grid, block, 0, stream>>>(p); break;
    default: attention_rows<T, 256><<<grid, block, 0, stream>>>(p); break;
  }
}

}  // namespace

Status invariant_attention_cuda(const AttentionProblem& p, cudaStream_t stream) {
  if (const Status s = attention_problem_check(p); s != Status::ok) return s;
  if (p.sequences == 0 || p.max_q_len == 0) return Status::ok;
  const std::int64_t blocks = (p.max_q_len + kWarps - 1) / kWarps;
  if (blocks > 0x7fffffff) return Status::invalid_argument;
  const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(p.heads),
                  static_cast<unsigned>(p.sequences));
  if (p.dtype == DType::bf16) {
    launch<DType::bf16>(p, grid, stream);
  } else {
    launch<DType::f16>(p, grid, stream);
  }
  return cudaGetLastError() == cudaSuccess ? Status::ok : Status::cuda_error;
}

}  // namespace samebits::kernels
