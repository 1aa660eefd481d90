// The CUDA side of the batched indexer: the exact algorithm's scores (scores_kernel; tensor_cores
// is tensor_core_scores.cu), then the batched top-k. scores_kernel: one block per (item, tile of
// 128 keys); warp w owns heads w, w + 4, ..., lane l keys l, l + 32, l + 64, l + 96 of the tile;
// each (head, key) dot runs j = 0 .. d - 1 in one register (invariant_indexer_order.h), and one
// thread sums a key's heads in ascending order.
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_pipeline.h>

#include <type_traits>

#include "kernels/common/cuda_status.h"
#include "kernels/common/shared_memory.h"
#include "kernels/indexer/invariant_indexer.h"
#include "kernels/indexer/invariant_indexer_order.h"
#include "kernels/indexer/item_bounds.h"
#include "kernels/indexer/tensor_core_scores.h"
#include "kernels/topk/invariant_topk.h"

namespace samebits::kernels {
namespace {

using namespace indexer_order;

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
constexpr int kTileKeys = 128;  // four keys per lane: lane l holds keys l, l + 32, l + 64, l + 96
constexpr int kKeysPerLane = kTileKeys / 32;

struct Fp8 {
  std::uint8_t bits;
};

// Four consecutive inputs (8 bytes of bf16, 4 of fp8), widened exactly to float32.
template <typename In>
__device__ __forceinline__ float4 load4(const In* p) {
  if constexpr (std::is_same_v<In, __nv_bfloat16>) {
    const uint2 raw = *reinterpret_cast<const uint2*>(p);
    return make_float4(__uint_as_float(raw.x << 16), __uint_as_float(raw.x & 0xffff0000u),
                       __uint_as_float(raw.y << 16), __uint_as_float(raw.y & 0xffff0000u));
  } else {
    // The hardware conversion to half is exact (every e4m3 value is a half), as is half to float:
    // the same values as e4m3_to_float, which the twin uses (the fp8 GPU tests compare kernel and
    // twin).
    const unsigned int raw = *reinterpret_cast<const unsigned int*>(p);
    const __half2 lo =
        __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(raw & 0xffff), __NV_E4M3);
    const __half2 hi =
        __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(raw >> 16), __NV_E4M3);
    const float2 a = __half22float2(lo), b = __half22float2(hi);
    return make_float4(a.x, a.y, b.x, b.y);
  }
}

__device__ __forceinline__ float dot4(float acc, float4 q, float4 k) {
  acc = __fmaf_rn(q.x, k.x, acc);
  acc = __fmaf_rn(q.y, k.y, acc);
  acc = __fmaf_rn(q.z, k.z, acc);
  return __fmaf_rn(q.w, k.w, acc);
}

template <typename In, int kHeadsPerWarp>
__global__ void __launch_bounds__(kThreads)
    scores_kernel(const In* q, const In* keys, const std::int64_t* offsets, ItemBounds items,
                  const float* weights, const float* q_scale, const float* k_scale, int head_dim,
                  float* scores) {
  constexpr int kHeads = kHeadsPerWarp * kWarps;
  extern __shared__ float4 shared[];
  const int item = blockIdx.y;
  const GuardedRow span = guarded_row(offsets, item, items.total, items.max_length, items.guarded);
  const std::int64_t start = span.start;
  const int length = static_cast<int>(span.length);  // a flawed item: 0, no block works
  const int tile = blockIdx.x * kTileKeys;
  if (tile >= length) return;
  const int quads = head_dim / 4;
  // Keys stay in their input format in shared memory (widened when read): half the bytes of
  // float32 for bf16, so three blocks fit on a multiprocessor. A quad is 4 inputs: 8 bytes of bf16
  // (uint2), 4 of fp8 (uint32); rows are padded by one quad so that lanes reading one quad of
  // different keys fall in different banks.
  using Quad = std::conditional_t<sizeof(In) == 2, uint2, unsigned int>;
  const int key_stride = quads + 1;                                   // in quads
  float4* q_tile = shared;                                            // [kHeads][quads]
  Quad* key_tile = reinterpret_cast<Quad*>(shared + kHeads * quads);  // [kTileKeys][key_stride]
  float* parts = reinterpret_cast<float*>(key_tile);  // [kTileKeys][kHeads + 1], after the dots

  // The key tile is copied asynchronously (no register round trip per quad, so every copy of a
  // thread is in flight at once; keys past the item's end are zero-filled), while q is widened.
  // Thread t copies quads i = t, t + kThreads, ... of the tile; i = key * quads + quad is walked
  // by steps, not divided out per copy (a division per copy cost a sixth of the kernel's time).
  const Quad* tile_keys = reinterpret_cast<const Quad*>(keys + (start + tile) * head_dim);
  const int key_step = kThreads / quads, quad_step = kThreads % quads;
  int key = threadIdx.x / quads, quad = threadIdx.x % quads;
  for (int i = threadIdx.x; i < kTileKeys * quads; i += kThreads) {
    const bool present = tile + key < length;
    __pipeline_memcpy_async(&key_tile[key * key_stride + quad],
                            present ? &tile_keys[key * quads + quad] : tile_keys, sizeof(Quad),
                            present ? 0 : sizeof(Quad));
    key += key_step;
    quad += quad_step;
    if (quad >= quads) {
      quad -= quads;
      ++key;
    }
  }
  __pipeline_commit();
  const In* item_q = q + static_cast<std::int64_t>(item) * kHeads * head_dim;
  for (int i = threadIdx.x; i < kHeads * quads; i += kThreads) q_tile[i] = load4(item_q + 4 * i);
  __pipeline_wait_prior(0);
  __syncthreads();

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float dots[kHeadsPerWarp][kKeysPerLane];
#pragma unroll
  for (int i = 0; i < kHeadsPerWarp; ++i) {
#pragma unroll
    for (int t = 0; t < kKeysPerLane; ++t) dots[i][t] = 0.0f;
  }
  for (int quad = 0; quad < quads; ++quad) {
    float4 key[kKeysPerLane];
#pragma unroll
    for (int t = 0; t < kKeysPerLane; ++t) {
      key[t] = load4(reinterpret_cast<const In*>(&key_tile[(lane + 32 * t) * key_stride + quad]));
    }
    // Every head's q quad is read before the first FMA (one address per warp: broadcasts): read
    // one head ahead, each head's first FMA waited out a shared-memory round trip.
    float4 qh[kHeadsPerWarp];
#pragma unroll
    for (int i = 0; i < kHeadsPerWarp; ++i) qh[i] = q_tile[(warp + kWarps * i) * quads + quad];
#pragma unroll
    for (int i = 0; i < kHeadsPerWarp; ++i) {
#pragma unroll
      for (int t = 0; t < kKeysPerLane; ++t) dots[i][t] = dot4(dots[i][t], qh[i], key[t]);
    }
  }
  __syncthreads();  // the key tile becomes the parts table

  const float scale = (q_scale ? q_scale[item] : 1.0f) * (k_scale ? k_scale[item] : 1.0f);
  const float* item_weights = weights + static_cast<std::int64_t>(item) * kHeads;
#pragma unroll
  for (int i = 0; i < kHeadsPerWarp; ++i) {
    const int h = warp + kWarps * i;
    const float w = item_weights[h];
#pragma unroll
    for (int t = 0; t < kKeysPerLane; ++t) {
      parts[(lane + 32 * t) * (kHeads + 1) + h] = head_part(dots[i][t], scale, w);
    }
  }
  __syncthreads();
  for (int key = threadIdx.x; key < kTileKeys; key += kThreads) {
    if (tile + key >= length) break;
    float score = 0.0f;
    for (int h = 0; h < kHeads; ++h) score = __fadd_rn(score, parts[key * (kHeads + 1) + h]);
    scores[start + tile + key] = score;
  }
}

template <typename In, int kHeadsPerWarp>
Status launch_scores(const IndexerProblem& p, cudaStream_t stream) {
  constexpr int kHeads = kHeadsPerWarp * kWarps;
  const int quads = static_cast<int>(p.head_dim / 4);
  const std::size_t key_bytes = std::size_t{kTileKeys} * (quads + 1) * 4 * sizeof(In);
  const std::size_t parts_bytes = std::size_t{kTileKeys} * (kHeads + 1) * sizeof(float);
  const std::size_t smem = std::size_t{kHeads} * quads * sizeof(float4) +
                           (key_bytes > parts_bytes ? key_bytes : parts_bytes);
  auto* kernel = scores_kernel<In, kHeadsPerWarp>;
  const Status allowed = allow_dynamic_shared_memory(kernel, smem);
  if (allowed != Status::ok) return allowed;
  const dim3 grid(static_cast<unsigned>((p.max_length + kTileKeys - 1) / kTileKeys),
                  static_cast<unsigned>(p.items));
  kernel<<<grid, kThreads, smem, stream>>>(
      static_cast<const In*>(p.q), static_cast<const In*>(p.keys), p.offsets, item_bounds(p),
      p.weights, p.q_scale, p.k_scale, static_cast<int>(p.head_dim), p.scores);
  return launch_status();
}

template <typename In>
Status launch_scores_for_heads(const IndexerProblem& p, cudaStream_t stream) {
  switch (p.heads) {
    case 4: return launch_scores<In, 1>(p, stream);
    case 8: return launch_scores<In, 2>(p, stream);
    case 16: return launch_scores<In, 4>(p, stream);
    case 32: return launch_scores<In, 8>(p, stream);
    case 64: return launch_scores<In, 16>(p, stream);
  }
  return Status::invalid_argument;
}

bool aligned4(const void* p, std::size_t element_bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % (4 * element_bytes) == 0;
}

}  // namespace

Status invariant_indexer_cuda(const IndexerProblem& p, cudaStream_t stream) {
  const std::size_t element_bytes = p.input == IndexerInput::bf16 ? 2 : 1;
  if (!indexer_problem_valid(p) || !aligned4(p.q, element_bytes) ||
      !aligned4(p.keys, element_bytes)) {
    return Status::invalid_argument;
  }
  if (p.items == 0) return Status::ok;
  if (p.max_length > 0) {
    const Status s =
        p.algorithm == IndexerAlgorithm::tensor_cores ? tensor_core_scores_cuda(p, stream)
        : p.input == IndexerInput::bf16 ? launch_scores_for_heads<__nv_bfloat16>(p, stream)
                                        : launch_scores_for_heads<Fp8>(p, stream);
    if (s != Status::ok) return s;
  }
  return invariant_topk_cuda(indexer_topk_problem(p), stream);
}

}  // namespace samebits::kernels
