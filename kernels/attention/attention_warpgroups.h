// The tensor-core attention's prefill blocks on Hopper's warpgroup MMA (attention_warpgroups.cu):
// the same rows, keys, order and bits as the mma.sync blocks, at wgmma's throughput.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/attention/invariant_attention.h"

namespace samebits::kernels {

// Whether this build carries the wgmma kernels (sm_90a) and the current GPU runs them (9.0).
bool attention_warpgroups_available();

// Launches the prefill blocks of 128 rows (`pack` heads per token, q_tiles per sequence and
// head group; splits on their own blocks when splits > 0; `crosses`: some block's keys cross a
// split border, so shared memory holds the merged partial of its earlier splits; p's border
// workspace is not used). The caller checked the problem and the workspaces.
Status launch_attention_warpgroups(const AttentionProblem& p, int pack, std::int64_t q_tiles,
                                   std::int64_t splits, bool crosses, cudaStream_t stream);

}  // namespace samebits::kernels
