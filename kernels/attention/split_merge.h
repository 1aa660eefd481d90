// The second launch of the split path, shared by both CUDA algorithms: one warp per query row and
// head merges the row's split partials in split order (step 3 of the order) and writes out and lse.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/attention/invariant_attention.h"

namespace samebits::kernels {

// Where split s of query row i of sequence b, head h, keeps its partial in p.workspace: m, l, then
// acc[head_dim], as floats.
#if defined(__CUDACC__)
__host__ __device__
#endif
    inline std::int64_t
    split_partial_offset(const AttentionProblem& p, std::int64_t splits, std::int64_t b,
                         std::int64_t i, std::int64_t h, std::int64_t s) {
  return (((b * p.max_q_len + i) * p.heads + h) * splits + s) * (p.head_dim + 2);
}

// Keys per split of each algorithm's order (invariant_attention_order.h).
std::int64_t attention_split_keys(AttentionAlgorithm algorithm);

// Launches the merge over p's rows, `splits` slots per row of `split_keys` keys each (the partials
// already written).
void launch_split_merge(const AttentionProblem& p, std::int64_t splits, std::int64_t split_keys,
                        cudaStream_t stream);

}  // namespace samebits::kernels
