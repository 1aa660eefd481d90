// The tensor_cores algorithm's score kernel (tensor_core_scores.cu), launched by
// invariant_indexer_cuda before the top-k: q K^T on bf16 or f16 MMA, then relu, weights and head
// sum.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/common/status.h"
#include "kernels/indexer/invariant_indexer.h"

namespace samebits::kernels {

// Writes p.scores for every item of p (already validated by invariant_indexer_cuda).
Status tensor_core_scores_cuda(const IndexerProblem& p, cudaStream_t stream);

}  // namespace samebits::kernels
