// The invariant attention's exact path on CUDA: one warp per query row and head, on FP32 FMA units,
// in the order of invariant_attention_order.h, so the twin's bits; also the shared split merge.
#include <cuda_fp16.h>

#include "kernels/attention/attention_layout.h"
#include "kernels/attention/attention_tensor_cores.h"
#include "kernels/attention/element_access.cuh"
#include "kernels/attention/invariant_attention.h"
#include "kernels/attention/invariant_attention_order.h"
#include "kernels/attention/split_merge.h"
#include "kernels/common/cuda_status.h"

namespace samebits::kernels {
namespace {

namespace order = attention_order;
namespace layout = attention_layout;

constexpr int kWarps = 4;  // query rows per block
constexpr unsigned kFull = 0xffffffffu;

using attention_elements::load;

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

// One split's partial (step 2 of the order) over keys [split, end) for the warp's row.
template <int D>
struct Partial {
  float m = -INFINITY, l = 0.0f, acc[D / 32];
};

template <DType T, int D>
__device__ Partial<D> split_partial(const AttentionProblem& p, const float* q, std::int64_t b,
                                    std::int64_t g, std::int64_t split, std::int64_t end,
                                    int lane) {
  constexpr int kPerLane = D / 32;
  const float scale_log2 = p.scale * order::kLog2e;
  const auto* v = static_cast<const std::uint16_t*>(p.v);
  Partial<D> s;
  for (int r = 0; r < kPerLane; ++r) s.acc[r] = 0.0f;
  for (std::int64_t tile = split; tile < end; tile += order::kKeyTile) {
    const std::int64_t t0 = tile + 2 * lane, t1 = t0 + 1;
    const float x0 = t0 < end ? score<T, D>(p, q, b, g, t0) * scale_log2 : -INFINITY;
    const float x1 = t1 < end ? score<T, D>(p, q, b, g, t1) * scale_log2 : -INFINITY;
    float tile_max = fmaxf(x0, x1);
    for (int off = 16; off >= 1; off /= 2) {
      tile_max = fmaxf(tile_max, __shfl_xor_sync(kFull, tile_max, off));
    }
    const float m_new = fmaxf(s.m, tile_max) + 0.0f;
    const float alpha = order::rescale(s.m, m_new);
    const float p0 = t0 < end ? order::probability(x0, m_new) : 0.0f;
    const float p1 = t1 < end ? order::probability(x1, m_new) : 0.0f;
    float leaf = p0 + p1;
    for (int off = 16; off >= 1; off /= 2) leaf = leaf + __shfl_xor_sync(kFull, leaf, off);
    const float l_scaled = s.l * alpha;
    s.l = l_scaled + leaf;
    s.m = m_new;
    float pv[kPerLane];
    for (int r = 0; r < kPerLane; ++r) pv[r] = 0.0f;
    const int visible = end - tile < order::kKeyTile ? static_cast<int>(end - tile)
                                                     : static_cast<int>(order::kKeyTile);
    for (int c = 0; c < visible; ++c) {
      const float pc0 = __shfl_sync(kFull, p0, c / 2), pc1 = __shfl_sync(kFull, p1, c / 2);
      const float pc = (c & 1) ? pc1 : pc0;
      const std::int64_t at = layout::kv_offset(p, b, tile + c, p.v_page_stride, p.v_token_stride) +
                              g * p.v_head_stride;
      for (int r = 0; r < kPerLane; ++r) pv[r] = fmaf(pc, load<T>(v, at + lane + 32 * r), pv[r]);
    }
    for (int r = 0; r < kPerLane; ++r) {
      const float scaled = s.acc[r] * alpha;
      s.acc[r] = scaled + pv[r];
    }
  }
  return s;
}

// Step 3: a later split's partial merged into the running one.
template <int D>
__device__ void merge_into(Partial<D>& run, const Partial<D>& s) {
  const order::MergeFactors f = order::merge_factors(run.m, run.l, s.m, s.l);
  for (int r = 0; r < D / 32; ++r) run.acc[r] = order::merge_acc(run.acc[r], s.acc[r], f);
}

// Step 4 for the warp's row.
template <DType T, int D>
__device__ void write_row(const AttentionProblem& p, std::int64_t b, std::int64_t i, std::int64_t h,
                          const Partial<D>& run, int lane) {
  auto* out = static_cast<std::uint16_t*>(p.out) +
              layout::row_offset(p, b, i, p.out_seq_stride, p.out_token_stride) +
              h * p.out_head_stride;
  for (int r = 0; r < D / 32; ++r)
    out[lane + 32 * r] = to_bits<T>(order::output(run.acc[r], run.l));
  if (p.lse && lane == 0) {
    p.lse[layout::row_offset(p, b, i, p.lse_seq_stride, p.lse_token_stride) +
          h * p.lse_head_stride] = order::lse(run.m, run.l);
  }
}

// The warp's query row into shared memory as floats.
template <DType T, int D>
__device__ void load_query(const AttentionProblem& p, std::int64_t b, std::int64_t i,
                           std::int64_t h, float* q, int lane) {
  const auto* q_row = static_cast<const std::uint16_t*>(p.q) +
                      layout::row_offset(p, b, i, p.q_seq_stride, p.q_token_stride) +
                      h * p.q_head_stride;
  for (int j = lane; j < D; j += 32) q[j] = load<T>(q_row, j);
  __syncwarp();
}

// Every split of a row in one warp, one after another (many rows: enough warps already).
template <DType T, int D>
__global__ void __launch_bounds__(kWarps * 32) attention_rows(AttentionProblem p) {
  __shared__ float q_shared[kWarps][D];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::int64_t b = blockIdx.z, h = blockIdx.y;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kWarps + warp;
  if (i >= layout::q_len(p, b)) return;  // the whole warp; no block-wide barrier follows
  const std::int64_t g = h / (p.heads / p.kv_heads);
  float* q = q_shared[warp];
  load_query<T, D>(p, b, i, h, q, lane);
  const std::int64_t n = layout::visible_keys(p, b, i);
  Partial<D> run;
  for (int r = 0; r < D / 32; ++r) run.acc[r] = 0.0f;
  for (std::int64_t split = 0; split < n; split += order::kSplitKeys) {
    const std::int64_t end = split + order::kSplitKeys < n ? split + order::kSplitKeys : n;
    const Partial<D> s = split_partial<T, D>(p, q, b, g, split, end, lane);
    if (split == 0) {
      run = s;
    } else {
      merge_into(run, s);
    }
  }
  write_row<T, D>(p, b, i, h, run, lane);
}

// Where split s of row (b, i), head h keeps its partial: m, l, then acc[D].
__device__ float* partial_slot(const AttentionProblem& p, std::int64_t splits, std::int64_t b,
                               std::int64_t i, std::int64_t h, std::int64_t s) {
  return p.workspace + split_partial_offset(p, splits, b, i, h, s);
}

// Few rows over long keys: one warp per (row, split) writes the split's partial...
template <DType T, int D>
__global__ void __launch_bounds__(kWarps * 32)
    attention_split_partials(AttentionProblem p, std::int64_t splits) {
  __shared__ float q_shared[kWarps][D];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::int64_t b = blockIdx.z, h = blockIdx.y;
  const std::int64_t s = blockIdx.x % splits;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x / splits) * kWarps + warp;
  if (i >= layout::q_len(p, b)) return;
  const std::int64_t n = layout::visible_keys(p, b, i);
  const std::int64_t split = s * order::kSplitKeys;
  if (split >= n) return;
  const std::int64_t end = split + order::kSplitKeys < n ? split + order::kSplitKeys : n;
  float* q = q_shared[warp];
  load_query<T, D>(p, b, i, h, q, lane);
  const Partial<D> part =
      split_partial<T, D>(p, q, b, h / (p.heads / p.kv_heads), split, end, lane);
  float* slot = partial_slot(p, splits, b, i, h, s);
  if (lane == 0) {
    slot[0] = part.m;
    slot[1] = part.l;
  }
  for (int r = 0; r < D / 32; ++r) slot[2 + lane + 32 * r] = part.acc[r];
}

// ...and one warp per row merges them in split order, exactly as attention_rows does.
template <DType T, int D>
__global__ void __launch_bounds__(kWarps * 32)
    attention_merge(AttentionProblem p, std::int64_t splits, std::int64_t split_keys) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::int64_t b = blockIdx.z, h = blockIdx.y;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kWarps + warp;
  if (i >= layout::q_len(p, b)) return;
  const std::int64_t n = layout::visible_keys(p, b, i);
  const std::int64_t count = n > 0 ? (n + split_keys - 1) / split_keys : 0;  // splits with keys
  Partial<D> run;
  for (int r = 0; r < D / 32; ++r) run.acc[r] = 0.0f;
  // kBatch partials read at once, then merged one by one in split order: the reads overlap, the
  // arithmetic is the same.
  constexpr int kBatch = 8;
  for (std::int64_t s0 = 0; s0 < count; s0 += kBatch) {
    Partial<D> part[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      if (s0 + u >= count) break;
      const float* slot = partial_slot(p, splits, b, i, h, s0 + u);
      part[u].m = slot[0];
      part[u].l = slot[1];
#pragma unroll
      for (int r = 0; r < D / 32; ++r) part[u].acc[r] = slot[2 + lane + 32 * r];
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      if (s0 + u >= count) break;
      if (s0 + u == 0) {
        run = part[u];
      } else {
        merge_into(run, part[u]);
      }
    }
  }
  write_row<T, D>(p, b, i, h, run, lane);
}

template <DType T, int D>
void launch_dim(const AttentionProblem& p, std::int64_t row_blocks, std::int64_t splits,
                cudaStream_t stream) {
  const dim3 block(kWarps * 32);
  const auto y = static_cast<unsigned>(p.heads), z = static_cast<unsigned>(p.sequences);
  if (splits == 0) {
    attention_rows<T, D><<<dim3(static_cast<unsigned>(row_blocks), y, z), block, 0, stream>>>(p);
    return;
  }
  attention_split_partials<T, D>
      <<<dim3(static_cast<unsigned>(row_blocks * splits), y, z), block, 0, stream>>>(p, splits);
  launch_split_merge(p, splits, order::kSplitKeys, stream);
}

template <DType T>
void launch(const AttentionProblem& p, std::int64_t row_blocks, std::int64_t splits,
            cudaStream_t stream) {
  switch (p.head_dim) {
    case 64: launch_dim<T, 64>(p, row_blocks, splits, stream); break;
    case 128: launch_dim<T, 128>(p, row_blocks, splits, stream); break;
    default: launch_dim<T, 256>(p, row_blocks, splits, stream); break;
  }
}

template <DType T, int D>
void launch_merge_dim(const AttentionProblem& p, std::int64_t splits, std::int64_t split_keys,
                      cudaStream_t stream) {
  const std::int64_t row_blocks = (p.max_q_len + kWarps - 1) / kWarps;
  attention_merge<T, D><<<dim3(static_cast<unsigned>(row_blocks), static_cast<unsigned>(p.heads),
                               static_cast<unsigned>(p.sequences)),
                          dim3(kWarps * 32), 0, stream>>>(p, splits, split_keys);
}

template <DType T>
void launch_merge(const AttentionProblem& p, std::int64_t splits, std::int64_t split_keys,
                  cudaStream_t stream) {
  switch (p.head_dim) {
    case 64: launch_merge_dim<T, 64>(p, splits, split_keys, stream); break;
    case 128: launch_merge_dim<T, 128>(p, splits, split_keys, stream); break;
    default: launch_merge_dim<T, 256>(p, splits, split_keys, stream); break;
  }
}

Status invariant_attention_exact_cuda(const AttentionProblem& p, cudaStream_t stream) {
  const std::int64_t row_blocks = (p.max_q_len + kWarps - 1) / kWarps;
  // Splits on their own warps when a workspace is given and there is more than one split: the
  // same partials and the same merge order as in one warp, so the same bits.
  std::int64_t splits = 0;
  if (p.workspace) {
    if (p.max_kv_len < 0) return Status::invalid_argument;
    if (p.workspace_floats < attention_split_workspace_floats(p))
      return Status::workspace_too_small;
    splits = (p.max_kv_len + order::kSplitKeys - 1) / order::kSplitKeys;
    if (splits < 2) splits = 0;
  }
  if (row_blocks * (splits > 0 ? splits : 1) > 0x7fffffff) return Status::invalid_argument;
  if (p.dtype == DType::bf16) {
    launch<DType::bf16>(p, row_blocks, splits, stream);
  } else {
    launch<DType::f16>(p, row_blocks, splits, stream);
  }
  return launch_status();
}

}  // namespace

void launch_split_merge(const AttentionProblem& p, std::int64_t splits, std::int64_t split_keys,
                        cudaStream_t stream) {
  if (p.dtype == DType::bf16) {
    launch_merge<DType::bf16>(p, splits, split_keys, stream);
  } else {
    launch_merge<DType::f16>(p, splits, split_keys, stream);
  }
}

std::int64_t attention_split_keys(AttentionAlgorithm algorithm) {
  return algorithm == AttentionAlgorithm::tensor_cores ? order::kTensorCoreSplitKeys
                                                       : order::kSplitKeys;
}

bool attention_prefers_split_launch(const AttentionProblem& p, int multiprocessors) {
  const std::int64_t keys = attention_split_keys(p.algorithm);
  if (p.max_kv_len <= keys) return false;
  if (p.algorithm == AttentionAlgorithm::tensor_cores)
    return attention_tensor_cores_blocks(p) < 2 * static_cast<std::int64_t>(multiprocessors);
  return p.sequences * p.max_q_len * p.heads <= 16384;  // one warp per row otherwise
}

std::int64_t attention_split_workspace_floats(const AttentionProblem& p) {
  const std::int64_t keys = attention_split_keys(p.algorithm);
  const std::int64_t splits = (p.max_kv_len + keys - 1) / keys;
  return p.sequences * p.max_q_len * p.heads * splits * (p.head_dim + 2);
}

Status invariant_attention_cuda(const AttentionProblem& p, cudaStream_t stream) {
  if (const Status s = attention_problem_check(p); s != Status::ok) return s;
  if (p.sequences == 0 || p.max_q_len == 0) return Status::ok;
  if (p.algorithm == AttentionAlgorithm::tensor_cores)
    return invariant_attention_tensor_cores_cuda(p, stream);
  return invariant_attention_exact_cuda(p, stream);
}

}  // namespace samebits::kernels
