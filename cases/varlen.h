// Batches of variable-length items: right-padded, left-padded (with a validity mask), packed end
// to end with offsets, or paged. The same sequences in each form, so their outputs must agree.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

namespace samebits {

// paged: an attention KV cache in fixed-size pages, handed out in a scrambled order through a
// block table; only ops with a paged path take it (pad_batch and pack_batch do not).
enum class PaddingMode { right, left, packed, paged };

const std::vector<std::string>& padding_mode_names();
std::string padding_mode_name(PaddingMode mode);
// Throws std::invalid_argument naming the accepted modes.
PaddingMode parse_padding_mode(const std::string& text);

struct PaddedBatch {
  at::Tensor data;                    // [B, ..., max_len, ...]: items along a new leading dim
  at::Tensor valid;                   // bool [B, max_len]: true where data holds the item
  std::vector<std::int64_t> lengths;  // each item's length along the padded dim
  std::vector<std::int64_t> starts;   // where each item begins along the padded dim (left: > 0)
};

// Stacks items (equal shapes except along `dim`) into one padded batch; the padded dim of the
// result is dim + 1. `fill` goes into every padded slot.
PaddedBatch pad_batch(const std::vector<at::Tensor>& items, std::int64_t dim, PaddingMode side,
                      const at::Scalar& fill);

struct PackedBatch {
  at::Tensor data;                    // items concatenated along `dim`
  std::vector<std::int64_t> offsets;  // item b occupies [offsets[b], offsets[b + 1])
};
PackedBatch pack_batch(const std::vector<at::Tensor>& items, std::int64_t dim);

}  // namespace samebits
