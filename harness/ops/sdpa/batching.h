// The forms in which a batch of attention sequences reaches SDPA: stacked, right/left-padded or
// packed with a block mask, and a causal prefill split into chunks or decoded token by token.
#pragma once

#include <ATen/ATen.h>

#include <optional>
#include <vector>

#include "cases/varlen.h"
#include "harness/ops/sdpa/aten_backends.h"

namespace samebits {

struct SdpaSetup {
  const SdpaImpl* impl = nullptr;
  bool causal = false;      // bottom-right aligned: query i of Lq sees keys j <= i + Lk - Lq
  bool enable_gqa = false;  // fewer key/value heads than query heads
};

// What attention gives for a batch or one item: the output and, from an implementation that
// returns it (samebits' attention; ATen's SDPA does not), the float32 log-sum-exp of each query
// row, its rows lined up with out's: [B, H, Lq, d] and [B, H, Lq], or [H, Lq, d] and [H, Lq].
struct Attended {
  at::Tensor out;
  std::optional<at::Tensor> lse;
};

// Which queries may see which keys, [Lq, Lk] bool: everything, or the bottom-right causal band.
at::Tensor visible_keys(std::int64_t lq, std::int64_t lk, bool causal, const at::Device& device);

// Attention over q [B, H, Lq, d], k and v [B, Hkv, Lk, d]. Causal self-attention (Lq == Lk) passes
// is_causal, one decode query (Lq == 1) needs no mask, other causal shapes pass the band as an
// explicit mask (ATen's is_causal is top-left aligned when Lq != Lk).
Attended attend_batch(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                      const SdpaSetup& setup);

// Variable-length items (q [H, Lq_i, d], k and v [Hkv, Lk_i, d]) in one right- or left-padded
// batch, or packed end to end into one sequence, with a mask that keeps each item's queries on its
// own keys (and causal within it). Padded slots of q, k and v hold `fill`. Returns each item's
// output [H, Lq_i, d] (and lse [H, Lq_i]), its valid rows only.
std::vector<Attended> attend_varlen(const std::vector<at::Tensor>& qs,
                                    const std::vector<at::Tensor>& ks,
                                    const std::vector<at::Tensor>& vs, PaddingMode mode,
                                    const at::Scalar& fill, const SdpaSetup& setup);

// Causal self-attention over q, k, v [B, H, L, d] computed chunk by chunk: queries [s, e) (a fresh
// contiguous tensor) attend keys [0, e) read from k and v as a KV cache of capacity L (a narrow()
// view with the cache's strides). chunk 1 is token-by-token decode. Returns [B, H, L, d] (and
// lse [B, H, L]), the chunks' rows end to end.
Attended attend_chunked(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
                        std::int64_t chunk, const SdpaSetup& setup);

}  // namespace samebits
