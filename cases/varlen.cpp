// Batches of variable-length items: right-padded, left-padded (with a validity mask) or packed
// end to end with offsets. The same sequences in each form, so their outputs must agree.
#include "cases/varlen.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

namespace samebits {

const std::vector<std::string>& padding_mode_names() {
  static const std::vector<std::string> names = {"right", "left", "packed", "paged"};
  return names;
}

std::string padding_mode_name(PaddingMode mode) {
  return padding_mode_names()[static_cast<std::size_t>(mode)];
}

PaddingMode parse_padding_mode(const std::string& text) {
  const auto& names = padding_mode_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == text) return static_cast<PaddingMode>(i);
  }
  throw std::invalid_argument(
      fmt::format("unknown padding \"{}\"; accepted: {}", text, fmt::join(names, ", ")));
}

PaddedBatch pad_batch(const std::vector<at::Tensor>& items, std::int64_t dim, PaddingMode side,
                      const at::Scalar& fill) {
  if (items.empty()) throw std::invalid_argument("pad_batch: no items");
  if (side == PaddingMode::packed)
    throw std::invalid_argument("pad_batch: use pack_batch for packed");
  if (side == PaddingMode::paged)
    throw std::invalid_argument("pad_batch: paged batches are built by the op's paged path");
  const at::Tensor& first = items.front();
  dim = at::maybe_wrap_dim(dim, first.dim());
  std::int64_t max_len = 0;
  for (const auto& t : items) max_len = std::max(max_len, t.size(dim));

  std::vector<std::int64_t> shape = {static_cast<std::int64_t>(items.size())};
  shape.insert(shape.end(), first.sizes().begin(), first.sizes().end());
  shape[dim + 1] = max_len;

  PaddedBatch batch;
  batch.data = at::full(shape, fill, first.options());
  batch.valid = at::zeros({static_cast<std::int64_t>(items.size()), max_len},
                          first.options().dtype(at::kBool));
  for (std::size_t b = 0; b < items.size(); ++b) {
    const std::int64_t len = items[b].size(dim);
    const std::int64_t start = side == PaddingMode::left ? max_len - len : 0;
    batch.data.select(0, static_cast<std::int64_t>(b)).narrow(dim, start, len).copy_(items[b]);
    batch.valid.select(0, static_cast<std::int64_t>(b)).narrow(0, start, len).fill_(true);
    batch.lengths.push_back(len);
    batch.starts.push_back(start);
  }
  return batch;
}

PackedBatch pack_batch(const std::vector<at::Tensor>& items, std::int64_t dim) {
  if (items.empty()) throw std::invalid_argument("pack_batch: no items");
  PackedBatch batch;
  batch.offsets.push_back(0);
  for (const auto& t : items) {
    batch.offsets.push_back(batch.offsets.back() + t.size(at::maybe_wrap_dim(dim, t.dim())));
  }
  batch.data = at::cat(items, dim);
  return batch;
}

}  // namespace samebits
