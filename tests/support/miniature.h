// A shipped contract at test scale: the same checks, comparisons and expectations, with every size
// axis clamped small, so an op adapter's whole contract runs on the CPU in seconds.
#pragma once

#include "contracts/contract.h"

namespace samebits {

// Size axes are clamped (values above a cap become the cap; duplicates go): N 40, K and D 33, L
// 40, Lq 8, Lk 12, k 4, rows 4, heads 4, kv_heads 2, head_dim 8 (64 for sdpa, the bundled attention's smallest), chunk 4,
// batch 3. Each "lengths"
// list is scaled to a longest of 40 (12 for sdpa) with no length below 4, the largest k. Every
// other axis (dtype, generator, layout, padding, ...) stays as the contract has it.
Contract miniature(const Contract& contract);

}  // namespace samebits
