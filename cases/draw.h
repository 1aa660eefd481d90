// An item's tensors as a point's axes say to draw them (its generator and dtype), and special
// values planted at random places (NaN in top-k rows, zero rows of keys), seeded like the rest.
#pragma once

#include <ATen/ATen.h>

#include "cases/sweep.h"

namespace samebits {

// Values of `shape` from the point's "generator" axis, in its "dtype", on `device`.
at::Tensor draw(const Point& point, at::IntArrayRef shape, const at::Device& device,
                at::Generator& gen);

// Sets round(fraction * x.size(0)) slices of x along dim 0, at places drawn from `gen`, to
// `value`. Draws nothing when that count is 0, so inputs without plants keep the bits they had
// before the plant's axis existed.
void plant(at::Tensor& x, double fraction, const at::Scalar& value, const at::Device& device,
           at::Generator& gen);

}  // namespace samebits
