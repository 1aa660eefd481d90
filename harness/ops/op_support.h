// Small pieces the op adapters share: the standard dtype and generator axes, and moving an item's
// tensor into a batch. Kept here so each adapter reads as the op it wraps.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "harness/op.h"

namespace samebits {

// "dtype": one of cases/dtypes.h's names; `accepted` narrows them to those the op's calls take
// (empty: all), so validate refuses the others instead of run failing on them.
inline AxisSpec dtype_axis(const std::string& fallback, std::vector<std::string> accepted = {}) {
  return {"dtype", AxisSpec::Type::text, fallback, std::move(accepted),
          "element type of the inputs"};
}
// The floating dtypes ATen's reductions, softmax, sorts and norms take on the CPU and on CUDA
// (float8 has no such kernels).
inline std::vector<std::string> aten_float_dtypes() {
  return {"float32", "float16", "bfloat16", "float64"};
}
// "generator": one of cases/generators.h's names.
inline AxisSpec generator_axis(const std::string& fallback) {
  return {"generator", AxisSpec::Type::text, fallback, {}, "how input values are drawn"};
}

}  // namespace samebits
