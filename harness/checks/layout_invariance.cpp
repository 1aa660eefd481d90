// layout_invariance: a contiguous batch vs the same values laid out otherwise (a strided view, a
// storage offset, pad-then-trim): kernels chosen by alignment and stride show here.
#include <fmt/format.h>

#include "cases/layout.h"
#include "harness/checks/batch_axes.h"
#include "harness/checks/check.h"

namespace samebits {
namespace {

class LayoutInvariance final : public Check {
 public:
  CheckKind kind() const override { return CheckKind::layout_invariance; }
  std::string compares() const override {
    return "contiguous vs strided:<gap> (NaN canaries in the gap), offset:<n>, padded:<m> (pad, "
           "run, trim)";
  }
  std::vector<AxisSpec> axes() const override {
    return {batch_axis(1),
            {"layout",
             AxisSpec::Type::text,
             nullptr,
             {},
             "contiguous, strided:<gap>, offset:<elements>, padded:<multiple>"}};
  }
  void run(CaseContext& c) const override {
    const auto items = c.items(c.batch());
    const auto contiguous = c.run(c.request(items), Side::baseline);
    BatchRequest laid_out = c.request(items);
    laid_out.layout = parse_layout(c.point().text("layout"));
    const auto other = c.run(laid_out, Side::variant);
    c.compare(contiguous, other, fmt::format("contiguous batch of {}", c.batch()),
              fmt::format("the same values laid out {}", laid_out.layout.text));
  }
};

}  // namespace

SAMEBITS_REGISTER_CHECK(layout_invariance, LayoutInvariance)

}  // namespace samebits
