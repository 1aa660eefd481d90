// Memory layouts of the same logical values: a strided view into a wider buffer, a non-zero storage
// offset, or pad-to-a-multiple (run on the padded tensor, then trim). Gaps hold NaN canaries.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

namespace samebits {

enum class LayoutKind { contiguous, strided, offset, padded };

struct Layout {
  LayoutKind kind = LayoutKind::contiguous;
  std::int64_t amount = 0;  // strided: gap elements per row; offset: elements; padded: multiple
  std::string text = "contiguous";
};

// Accepted forms, for messages: contiguous, strided:<gap>, offset:<elements>, padded:<multiple>.
const std::vector<std::string>& layout_forms();
std::string layout_kind_name(LayoutKind kind);
// Throws std::invalid_argument naming the accepted forms.
Layout parse_layout(const std::string& text);

// The same values as x, laid out as `layout` says along `dim` (strided, offset); contiguous and
// padded layouts return a contiguous copy (padding is the op's business: see pad_to_multiple).
at::Tensor place(const at::Tensor& x, const Layout& layout, std::int64_t dim = -1);

// x with `dim` padded at its end up to a multiple of `multiple`, filled with `value`.
at::Tensor pad_to_multiple(const at::Tensor& x, std::int64_t multiple, std::int64_t dim,
                           const at::Scalar& value);

}  // namespace samebits
