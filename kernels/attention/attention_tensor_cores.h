// The invariant attention's tensor-core path (attention_tensor_cores.cu), called by
// invariant_attention_cuda for AttentionAlgorithm::tensor_cores after the common checks.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/attention/invariant_attention.h"

namespace samebits::kernels {

Status invariant_attention_tensor_cores_cuda(const AttentionProblem& p, cudaStream_t stream);

// Blocks of a launch over p without splits on their own blocks.
std::int64_t attention_tensor_cores_blocks(const AttentionProblem& p);

}  // namespace samebits::kernels
