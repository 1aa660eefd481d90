// The CPU twin of the batched indexer: every score by the operations of invariant_indexer_order.h
// in their order (exact: the GPU's bits; tensor_cores: float64 dots), then the top-k twin.
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/common/half_bits.h"
#include "kernels/indexer/invariant_indexer.h"
#include "kernels/indexer/invariant_indexer_order.h"
#include "kernels/topk/invariant_topk.h"

namespace samebits::kernels {
namespace {

using namespace indexer_order;

// Row `row` of a [rows, cols] input, widened exactly to float32.
void widen_row(const void* data, IndexerInput input, std::int64_t row, std::int64_t cols,
               float* out) {
  if (input == IndexerInput::bf16) {
    const auto* p = static_cast<const std::uint16_t*>(data) + row * cols;
    for (std::int64_t j = 0; j < cols; ++j) out[j] = bfloat16_to_float(p[j]);
  } else {
    const auto* p = static_cast<const std::uint8_t*>(data) + row * cols;
    for (std::int64_t j = 0; j < cols; ++j) out[j] = e4m3_to_float(p[j]);
  }
}

// The exact algorithm's dot: one fma per j, ascending (std::fma is the GPU's __fmaf_rn).
float fma_dot(const float* q, const float* key, std::int64_t d) {
  float dot = 0.0f;
  for (std::int64_t j = 0; j < d; ++j) dot = std::fma(q[j], key[j], dot);
  return dot;
}

// The tensor_cores twin's dot: exact products summed in float64, ascending j, rounded once.
float float64_dot(const float* q, const float* key, std::int64_t d) {
  double dot = 0.0;
  for (std::int64_t j = 0; j < d; ++j) dot += static_cast<double>(q[j]) * key[j];
  return static_cast<float>(dot);
}

}  // namespace

const char* indexer_algorithm_name(IndexerAlgorithm a) {
  return a == IndexerAlgorithm::exact ? "exact" : "tensor_cores";
}

bool indexer_heads_supported(std::int64_t heads) {
  return heads == 4 || heads == 8 || heads == 16 || heads == 32 || heads == 64;
}

bool indexer_problem_valid(const IndexerProblem& p) {
  return p.items >= 0 && p.items <= 65535 && indexer_heads_supported(p.heads) && p.head_dim >= 4 &&
         p.head_dim % 4 == 0 && p.head_dim <= kIndexerMaxHeadDim && p.k >= 1 &&
         p.k <= kRadixSelectMaxK && p.max_length >= 0 && p.max_length <= kMaxRowLength;
}

Status invariant_indexer_cpu(const IndexerProblem& p) {
  if (!indexer_problem_valid(p)) return Status::invalid_argument;
  const std::int64_t d = p.head_dim;
  std::vector<float> q(static_cast<std::size_t>(p.heads * d));
  std::vector<float> key(static_cast<std::size_t>(d)), parts(static_cast<std::size_t>(p.heads));
  for (std::int64_t b = 0; b < p.items; ++b) {
    const GuardedRow item = guarded_row(p.offsets, b, p.total_keys, p.max_length);
    if (item.flaws) continue;  // no score; the top-k twin marks it
    const std::int64_t start = item.start, length = item.length;
    for (std::int64_t h = 0; h < p.heads; ++h)
      widen_row(p.q, p.input, b * p.heads + h, d, &q[h * d]);
    const float scale = (p.q_scale ? p.q_scale[b] : 1.0f) * (p.k_scale ? p.k_scale[b] : 1.0f);
    const float* weights = p.weights + b * p.heads;
    for (std::int64_t t = 0; t < length; ++t) {
      widen_row(p.keys, p.input, start + t, d, key.data());
      if (p.algorithm == IndexerAlgorithm::exact) {
        float score = 0.0f;
        for (std::int64_t h = 0; h < p.heads; ++h)
          score = score + head_part(fma_dot(&q[h * d], key.data(), d), scale, weights[h]);
        p.scores[start + t] = score;
      } else {
        for (std::int64_t h = 0; h < p.heads; ++h)
          parts[h] = head_part(float64_dot(&q[h * d], key.data(), d), scale, weights[h]);
        p.scores[start + t] = tensor_core_head_sum(parts.data(), static_cast<int>(p.heads));
      }
    }
  }
  return invariant_topk_cpu(indexer_topk_problem(p));
}

TopkProblem indexer_topk_problem(const IndexerProblem& p) {
  TopkProblem top;
  top.values = p.scores;
  top.dtype = DType::f32;
  top.rows = p.items;
  top.offsets = p.offsets;
  top.max_length = p.max_length;
  top.total = p.total_keys;  // the scores are packed like the keys
  top.status = p.status;
  top.unguarded_for_tests = p.unguarded_for_tests;
  top.k = p.k;
  top.out_values = p.top_values;
  top.out_indices = p.top_indices;
  top.workspace = p.topk_workspace;
  top.workspace_bytes = p.topk_workspace_bytes;
  return top;
}

}  // namespace samebits::kernels
