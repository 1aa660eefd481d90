// The attention backward's dK/dV and dQ blocks on Hopper's warpgroup MMA
// (attention_backward_warpgroups.cu): the mma.sync blocks' order and bits, at wgmma's speed.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/attention/invariant_attention_backward.h"

namespace samebits::kernels {

// Launches the dK/dV blocks, then the dQ blocks, on `stream` (D per row already written), for
// head dims 64 and 128 where attention_warpgroups_available(); invalid_argument elsewhere.
Status launch_attention_backward_warpgroups(const AttentionBackwardProblem& bp,
                                            cudaStream_t stream);

}  // namespace samebits::kernels
