// The tensor-core attention's prefill blocks on Hopper's warpgroup MMA (attention_warpgroups.cu):
// the same rows, keys, order and bits as the mma.sync blocks, at wgmma's throughput.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/attention/invariant_attention.h"

namespace samebits::kernels {

// Whether this build carries the wgmma kernels (sm_90a) and the current GPU runs them (9.0).
bool attention_warpgroups_available();

// Whether a prefill over p runs persistent blocks, one per SM taking turns over the blocks of a
// plain launch: every prefill whose longest keys are known. Measured on the H100 against the
// plain grid in one call (stop 46): 16 x 1024 -14 %, 4 x 4096 -6 %, 1 x 16k -1 %; persistence
// only where no block has more keys than a split lost 1 to 2 % on the two long shapes. The same
// bits either way.
bool attention_warpgroups_persistent(const AttentionProblem& p);

// Floats of border workspace the prefill needs when some block's keys cross a split border: the
// merged partial of a row's earlier splits, per persistent block (0: not persistent).
std::int64_t attention_warpgroups_border_floats(const AttentionProblem& p);

// Launches the prefill over blocks of 128 rows (`pack` heads per token, q_tiles per sequence
// and head group; splits on their own blocks when splits > 0): p.persistent_blocks blocks taking
// turns over them, else as attention_warpgroups_persistent says. `crosses`: some block's keys cross
// a split border, so p's border workspace holds the merged partial of its earlier splits
// (workspace_too_small without attention_warpgroups_border_floats(p) floats there). The caller
// checked the problem.
Status launch_attention_warpgroups(const AttentionProblem& p, int pack, std::int64_t q_tiles,
                                   std::int64_t splits, bool crosses, cudaStream_t stream);

}  // namespace samebits::kernels
