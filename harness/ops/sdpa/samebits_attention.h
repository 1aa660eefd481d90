// The sdpa op's "samebits" implementation: the same batches handed to the bundled invariant
// attention the way its users call it (dense [B, H, L, d], packed with offsets, or paged).
#pragma once

#include <ATen/ATen.h>

#include <vector>

#include "kernels/attention/autograd.h"

namespace samebits {

// q [B, H, Lq, d], k and v [B, Hkv, Lk, d]; causal is bottom-right aligned, as the sdpa op's.
// Returns out [B, H, Lq, d] and the log-sum-exp lse [B, H, Lq].
AttentionOutputs samebits_attend_batch(const at::Tensor& q, const at::Tensor& k,
                                       const at::Tensor& v, bool causal);

// Items q [H, Lq_i, d], k and v [Hkv, Lk_i, d] packed end to end with their offsets (samebits
// takes lengths, never a mask or padded slots); returns each item's out [H, Lq_i, d] and lse
// [H, Lq_i], cut from the packed rows at the item's offsets.
std::vector<AttentionOutputs> samebits_attend_varlen(const std::vector<at::Tensor>& qs,
                                                     const std::vector<at::Tensor>& ks,
                                                     const std::vector<at::Tensor>& vs,
                                                     bool causal);

// The same items through torch.ops.samebits.attention_with_kvcache: each item's keys and values in
// pages of 16 tokens of one pool, handed out in a scrambled order through a block table; the
// keys of an item's queries' own positions (its last Lq_i) appended as k_new and v_new, the rest
// already cached. Needs Lq_i <= Lk_i. Returns each item's out and lse as samebits_attend_varlen.
std::vector<AttentionOutputs> samebits_attend_paged(const std::vector<at::Tensor>& qs,
                                                    const std::vector<at::Tensor>& ks,
                                                    const std::vector<at::Tensor>& vs, bool causal);

}  // namespace samebits
