// The sdpa op's "samebits" implementation: the same batches handed to the bundled invariant
// attention the way its users call it (dense [B, H, L, d], or packed sequences with offsets).
#pragma once

#include <ATen/ATen.h>

#include <vector>

namespace samebits {

// q [B, H, Lq, d], k and v [B, Hkv, Lk, d]; causal is bottom-right aligned, as the sdpa op's.
at::Tensor samebits_attend_batch(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                 bool causal);

// Items q [H, Lq_i, d], k and v [Hkv, Lk_i, d] packed end to end with their offsets (samebits
// takes lengths, never a mask or padded slots); returns each item's [H, Lq_i, d].
std::vector<at::Tensor> samebits_attend_varlen(const std::vector<at::Tensor>& qs,
                                               const std::vector<at::Tensor>& ks,
                                               const std::vector<at::Tensor>& vs, bool causal);

}  // namespace samebits
