// Memory layouts of the same logical values: a strided view into a wider buffer, a non-zero storage
// offset, or pad-to-a-multiple (run on the padded tensor, then trim). Gaps hold NaN canaries.
#include "cases/layout.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

#include "cases/generators.h"

namespace samebits {

const std::vector<std::string>& layout_forms() {
  static const std::vector<std::string> forms = {"contiguous", "strided:<gap>", "offset:<elements>",
                                                 "padded:<multiple>"};
  return forms;
}

std::string layout_kind_name(LayoutKind kind) {
  switch (kind) {
    case LayoutKind::contiguous: return "contiguous";
    case LayoutKind::strided: return "strided";
    case LayoutKind::offset: return "offset";
    case LayoutKind::padded: return "padded";
  }
  return "?";
}

Layout parse_layout(const std::string& text) {
  const auto fail = [&]() -> Layout {
    throw std::invalid_argument(
        fmt::format("unknown layout \"{}\"; accepted: {} (amounts are positive "
                    "integers)",
                    text, fmt::join(layout_forms(), ", ")));
  };
  Layout layout;
  layout.text = text;
  if (text == "contiguous") return layout;
  const auto colon = text.find(':');
  if (colon == std::string::npos) return fail();
  const std::string kind = text.substr(0, colon);
  const std::string amount = text.substr(colon + 1);
  if (amount.empty() || amount.find_first_not_of("0123456789") != std::string::npos) return fail();
  try {
    layout.amount = std::stoll(amount);
  } catch (const std::out_of_range&) {  // past int64: no buffer could hold it anyway
    return fail();
  }
  if (layout.amount <= 0) return fail();
  if (kind == "strided")
    layout.kind = LayoutKind::strided;
  else if (kind == "offset")
    layout.kind = LayoutKind::offset;
  else if (kind == "padded")
    layout.kind = LayoutKind::padded;
  else
    return fail();
  return layout;
}

at::Tensor place(const at::Tensor& x, const Layout& layout, std::int64_t dim) {
  dim = at::maybe_wrap_dim(dim, x.dim());
  switch (layout.kind) {
    case LayoutKind::contiguous:
    case LayoutKind::padded: return x.contiguous();
    case LayoutKind::strided: {
      // A wider buffer along `dim`: rows keep their logical length, the gap holds canaries.
      std::vector<std::int64_t> wide(x.sizes().begin(), x.sizes().end());
      wide[dim] += layout.amount;
      at::Tensor buffer = at::full(wide, canary_value(), x.options());
      at::Tensor view = buffer.narrow(dim, 0, x.size(dim));
      view.copy_(x);
      return view;
    }
    case LayoutKind::offset: {
      // The same contiguous shape, starting `amount` elements into its storage.
      at::Tensor storage = at::full({x.numel() + layout.amount}, canary_value(), x.options());
      at::Tensor view = storage.narrow(0, layout.amount, x.numel()).view(x.sizes());
      view.copy_(x);
      return view;
    }
  }
  return x;
}

at::Tensor pad_to_multiple(const at::Tensor& x, std::int64_t multiple, std::int64_t dim,
                           const at::Scalar& value) {
  dim = at::maybe_wrap_dim(dim, x.dim());
  const std::int64_t n = x.size(dim);
  const std::int64_t padded = (n + multiple - 1) / multiple * multiple;
  if (padded == n) return x.contiguous();
  std::vector<std::int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape[dim] = padded;
  at::Tensor out = at::full(shape, value, x.options());
  out.narrow(dim, 0, n).copy_(x);
  return out;
}

}  // namespace samebits
