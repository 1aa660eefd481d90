// The attention backward's tensor-core path (attention_backward_tensor_cores.cu), called by
// invariant_attention_backward_cuda for AttentionAlgorithm::tensor_cores after the common checks.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/attention/invariant_attention_backward.h"

namespace samebits::kernels {

// Whether the tensor-core backward takes bp: the forward's tensor-core conditions (head dim 64 or
// 128, a positive finite scale, q, k, v 16-byte aligned with strides multiples of 8), dout alike,
// and dq, dk, dv 4-byte aligned with even strides (written two elements at a time).
bool attention_backward_tensor_cores_supported(const AttentionBackwardProblem& bp);

// Three launches on `stream`, no atomics: D per row, dK/dV per key block, dQ per query block
// (invariant_attention_backward_order.h, the tensor-core order), the last two on wgmma where
// forward.warpgroup_mma and the GPU is a Hopper (the same bits). invalid_argument where not
// supported.
Status invariant_attention_backward_tensor_cores_cuda(const AttentionBackwardProblem& bp,
                                                      cudaStream_t stream);

}  // namespace samebits::kernels
