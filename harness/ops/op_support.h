// Small pieces the op adapters share: the standard dtype and generator axes, and moving an item's
// tensor into a batch. Kept here so each adapter reads as the op it wraps.
#pragma once

#include <string>

#include "harness/op.h"

namespace samebits {

// "dtype": one of cases/dtypes.h's names.
inline AxisSpec dtype_axis(const std::string& fallback) {
  return {"dtype", AxisSpec::Type::text, fallback, {}, "element type of the inputs"};
}
// "generator": one of cases/generators.h's names.
inline AxisSpec generator_axis(const std::string& fallback) {
  return {"generator", AxisSpec::Type::text, fallback, {}, "how input values are drawn"};
}

}  // namespace samebits
