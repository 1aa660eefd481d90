// The batch, position and optional padding axes that several check kinds read, and where a
// position puts the item under test: written once so every kind spells them the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cases/sweep.h"
#include "harness/axis_spec.h"

namespace samebits {

inline AxisSpec batch_axis(std::int64_t fallback) {
  return {"batch", AxisSpec::Type::integer, fallback, {}, "number of items in the batch"};
}

inline AxisSpec position_axis() {
  return {"position",
          AxisSpec::Type::text,
          "last",
          {"first", "middle", "last"},
          "where the item under test sits in the batch"};
}

// The batch index a position axis names ("first", "middle", "last") in a batch of `batch`.
inline std::int64_t position_index(const std::string& position, std::int64_t batch) {
  if (position == "first") return 0;
  if (position == "middle") return batch / 2;
  if (position == "last") return batch - 1;
  throw std::invalid_argument("unknown position \"" + position +
                              "\"; accepted: first, middle, last");
}

// The optional padding, lengths and pad_fill axes of a kind whose call under test is `batch`
// items in one dense batch or, with padding and lengths, the items of `lengths` in one padded,
// packed or paged batch; `what` says what that batch is for ("repeat one batch").
inline std::vector<AxisSpec> optional_padding_axes(const std::string& what) {
  return {{"padding",
           AxisSpec::Type::text,
           nullptr,
           {"right", "left", "packed", "paged"},
           "optional, with lengths: " + what +
               " of the items of `lengths`, padded this way (batch is then not read)",
           true},
          {"lengths",
           AxisSpec::Type::integer_list,
           nullptr,
           {},
           "optional, with padding: the items' lengths along the padded dim",
           true},
          {"pad_fill",
           AxisSpec::Type::text,
           nullptr,
           {"neutral", "canary"},
           "optional, with padding: neutral padding (the default) or NaN canaries",
           true}};
}

// The axes of a kind that repeats one call (determinism, gradient_determinism): batch (4), repeat,
// and the optional padding axes; `second` names what runs again ("call").
inline std::vector<AxisSpec> repeat_axes(const std::string& second) {
  std::vector<AxisSpec> axes = {
      batch_axis(4),
      {"repeat",
       AxisSpec::Type::text,
       "same_stream",
       {"same_stream", "second_stream"},
       "run the second " + second + " on the same stream or on a second CUDA stream"}};
  // Optional: the call under test is then one padded, packed or paged batch of the items of
  // `lengths` (as padding_invariance's batched side), not `batch` items.
  for (auto& a : optional_padding_axes("repeat one batch")) axes.push_back(std::move(a));
  return axes;
}

// Why a point cannot take `kind`'s optional padding axes as given, or nothing.
inline std::optional<std::string> optional_padding_impossible(const Point& p,
                                                              const std::string& kind) {
  if (p.has("padding") != p.has("lengths"))
    return kind + " takes padding and lengths together, or neither";
  if (p.has("pad_fill") && !p.has("padding")) return "pad_fill needs padding and lengths";
  if (p.has("lengths")) {
    for (auto len : p.integers("lengths")) {
      if (len < 1) return "lengths must be positive, got " + std::to_string(len);
    }
  }
  return std::nullopt;
}

}  // namespace samebits
