// An item's tensors as a point's axes say to draw them (its generator and dtype), and special
// values planted at random places (NaN in top-k rows, zero rows of keys), seeded like the rest.
#include "cases/draw.h"

#include <cmath>

#include "cases/dtypes.h"
#include "cases/generators.h"

namespace samebits {

at::Tensor draw(const Point& point, at::IntArrayRef shape, const at::Device& device,
                at::Generator& gen) {
  return generate(point.text("generator"), shape, parse_dtype(point.text("dtype")), device, gen);
}

void plant(at::Tensor& x, double fraction, const at::Scalar& value, const at::Device& device,
           at::Generator& gen) {
  const std::int64_t length = x.size(0);
  const auto count = static_cast<std::int64_t>(std::llround(fraction * length));
  if (count == 0) return;
  const at::Tensor places =
      at::randperm(length, gen, at::TensorOptions().dtype(at::kLong).device(device))
          .narrow(0, 0, count);
  x.index_fill_(0, places, value);
}

}  // namespace samebits
