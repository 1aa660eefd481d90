// The batch and position axes that several check kinds read, and where a position puts the item
// under test: written once so every kind spells them the same way.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

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

}  // namespace samebits
