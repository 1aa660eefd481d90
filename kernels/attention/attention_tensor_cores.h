// The invariant attention's tensor-core path (attention_tensor_cores.cu), called by
// invariant_attention_cuda for AttentionAlgorithm::tensor_cores after the common checks.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/attention/invariant_attention.h"

namespace samebits::kernels {

Status invariant_attention_tensor_cores_cuda(const AttentionProblem& p, cudaStream_t stream);

// Blocks of a launch over p without splits on their own blocks.
std::int64_t attention_tensor_cores_blocks(const AttentionProblem& p);

// A check of what the epilogue relies on (attention_device_checks.cu): over 2^32 pairs (a, l) in
// RowQuotient's range, counts[0] = quotients that differ from IEEE division, counts[1] = the same
// without the correction step (a control), counts[2] = pairs compared, counts[3] = the range's
// edges misclassified (device memory, counts start at 0).
Status attention_row_quotient_mismatches_cuda(unsigned long long* counts, cudaStream_t stream);

}  // namespace samebits::kernels
