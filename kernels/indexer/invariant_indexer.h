// The attention indexer of reference 000 as one batched op: per item, scores = sum over heads of
// relu(q K^T * scale) * w, then the top k, every item's bits as if it ran alone. No torch here.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernels/common/status.h"
#include "kernels/topk/invariant_topk.h"

namespace samebits::kernels {

enum class IndexerInput { bf16, f8_e4m3 };

// How each dot product q_h . k_t is formed (invariant_indexer_order.h has both orders).
// tensor_cores, the default: bf16 MMA with float32 accumulators (fp8 inputs widened exactly to
//   f16, f16 MMA), 16 products per step, steps in ascending j. Bits invariant to batch, position
//   and the other items on one GPU; against float64 within indexer_error_bound.h's bound. Its CPU
//   twin takes each dot in float64, rounded once to float32: within its own bound, not the GPU's
//   bits.
// exact: one float32 fma per j, ascending; the CUDA kernel and the CPU twin give the same bits.
enum class IndexerAlgorithm { tensor_cores, exact };
const char* indexer_algorithm_name(IndexerAlgorithm a);  // "tensor_cores", "exact"

// Shapes the kernel takes: heads in {4, 8, 16, 32, 64}, head_dim a multiple of 4 up to 256,
// k up to kRadixSelectMaxK (kernels/topk/invariant_topk.h).
constexpr std::int64_t kIndexerMaxHeadDim = 256;
bool indexer_heads_supported(std::int64_t heads);

// Item b: q[b] = q + b * heads * head_dim ([heads, head_dim] row-major), keys rows
// offsets[b] .. offsets[b + 1] of keys ([total, head_dim] row-major), weights[b * heads + h],
// scales q_scale[b] and k_scale[b] (nullptr: 1). Outputs: scores[offsets[b] + t] (float32, packed
// like the keys), and per item the top k: top_values[b * k + j], top_indices[b * k + j] (-inf and
// -1 past a short item's end). offsets, like every pointer, live on the device for the CUDA path
// and on the host for the twin. q and keys must be 4-element aligned. Items are guarded as the
// top-k's rows (kernels/common/row_guard.h, against total_keys and max_length): a flawed item
// reads no key, writes no score, and its top-k slots hold NaN and -1 (flaws OR-ed into status).
struct IndexerProblem {
  IndexerInput input = IndexerInput::bf16;
  std::int64_t items = 0;
  std::int64_t heads = 0;
  std::int64_t head_dim = 0;
  const void* q = nullptr;
  const void* keys = nullptr;
  const std::int64_t* offsets = nullptr;
  const float* weights = nullptr;
  const float* q_scale = nullptr;
  const float* k_scale = nullptr;
  std::int64_t max_length = 0;     // bounds every item's length (sizes the launch; longer: marked)
  std::int64_t total_keys = -1;    // the rows keys holds (negative: not known)
  std::int32_t* status = nullptr;  // as TopkProblem::status (optional)
  bool unguarded_for_tests = false;  // the guard's control, for tests only
  std::int64_t k = 0;
  IndexerAlgorithm algorithm = IndexerAlgorithm::tensor_cores;
  float* scores = nullptr;
  float* top_values = nullptr;
  std::int64_t* top_indices = nullptr;
  // CUDA only, optional: the top-k's split_select workspace (topk_split_workspace_bytes of
  // indexer_topk_problem(p)), which lets the top-k spread a few long items over many blocks.
  void* topk_workspace = nullptr;
  std::int64_t topk_workspace_bytes = 0;
};

// Whether the shapes are ones both paths take (the limits above, at most 65535 items, rows no
// longer than kMaxRowLength); the CUDA path also needs q and keys 4-element aligned.
bool indexer_problem_valid(const IndexerProblem& p);

// The second step of both paths: the batched top-k over the packed scores, one row per item.
TopkProblem indexer_topk_problem(const IndexerProblem& p);

// Two launches on `stream`: the scores of every item (by p.algorithm), then the batched top-k.
Status invariant_indexer_cuda(const IndexerProblem& p, cudaStream_t stream);

// The CPU twin: the same operations in the same order (invariant_indexer_order.h); for
// tensor_cores, the dots in float64 rounded once (the GPU's MMA order has no exact CPU model).
Status invariant_indexer_cpu(const IndexerProblem& p);

}  // namespace samebits::kernels
