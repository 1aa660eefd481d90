// The axes each check kind reads (batch size, position, layout, padding, chunk, ...), with their
// defaults: the other half, beside the op's own axes, of what a contract's sweep may name.
#include "harness/check_axes.h"

#include <stdexcept>

namespace samebits {
namespace {

using T = AxisSpec::Type;

AxisSpec batch_axis(std::int64_t fallback) {
  return {"batch", T::integer, fallback, {}, "number of items in the batch"};
}
AxisSpec position_axis() {
  return {"position",
          T::text,
          "last",
          {"first", "middle", "last"},
          "where the item under test sits in the batch"};
}

}  // namespace

std::vector<AxisSpec> check_axes(CheckKind kind) {
  switch (kind) {
    case CheckKind::determinism:
      return {batch_axis(4),
              {"repeat",
               T::text,
               "same_stream",
               {"same_stream", "second_stream"},
               "run the second call on the same stream or on a second CUDA stream"}};
    case CheckKind::batch_invariance: return {batch_axis(8), position_axis()};
    case CheckKind::position_invariance: return {batch_axis(8), position_axis()};
    case CheckKind::layout_invariance:
      return {batch_axis(1),
              {"layout",
               T::text,
               nullptr,
               {},
               "contiguous, strided:<gap>, offset:<elements>, padded:<multiple>"}};
    case CheckKind::padding_invariance:
      return {{"padding",
               T::text,
               nullptr,
               {"right", "left", "packed"},
               "how the items share one batch"},
              {"lengths", T::integer_list, nullptr, {}, "the items' lengths along the padded dim"},
              {"pad_fill",
               T::text,
               "neutral",
               {"neutral", "canary"},
               "padding holds the op's neutral value, or NaN canaries that must not leak"}};
    case CheckKind::chunking_invariance:
      return {batch_axis(1),
              {"chunk", T::integer, nullptr, {}, "chunk length; 1 is token-by-token decode"}};
    case CheckKind::equivalence:
    case CheckKind::reference: return {batch_axis(1)};
  }
  return {};
}

std::int64_t position_index(const std::string& position, std::int64_t batch) {
  if (position == "first") return 0;
  if (position == "middle") return batch / 2;
  if (position == "last") return batch - 1;
  throw std::invalid_argument("unknown position \"" + position +
                              "\"; accepted: first, middle, last");
}

}  // namespace samebits
