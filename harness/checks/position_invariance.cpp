// position_invariance: the same item at position 0 and at another position of one batch, in one
// call: an order that follows the item's place in the batch shows here.
#include <fmt/format.h>

#include "harness/checks/batch_axes.h"
#include "harness/checks/check.h"

namespace samebits {
namespace {

class PositionInvariance final : public Check {
 public:
  CheckKind kind() const override { return CheckKind::position_invariance; }
  std::string compares() const override {
    return "the same item at position 0 and at `position` of one batch";
  }
  std::vector<AxisSpec> axes() const override { return {batch_axis(8), position_axis()}; }
  std::optional<std::string> impossible(const Point& p) const override {
    if (p.integer("batch") < 2) return "position_invariance needs a batch of at least 2";
    if (position_index(p.text("position"), p.integer("batch")) == 0) {
      return "the item under test is compared with its copy at position 0, so its position must "
             "not be 0";
    }
    return std::nullopt;
  }
  void run(CaseContext& c) const override {
    const Item probe = c.item(0);
    const std::int64_t pos = position_index(c.point().text("position"), c.batch());
    auto items = c.batch_around(probe, c.batch(), pos);
    items[0] = probe;
    // Both sides come from this one call: its launches count as the variant's.
    const auto batched = c.run(c.request(items), Side::variant);
    c.compare({batched.at(0)}, {batched.at(static_cast<std::size_t>(pos))},
              fmt::format("item at position 0 of a batch of {}", c.batch()),
              fmt::format("the same item at position {}", pos));
  }
};

}  // namespace

SAMEBITS_REGISTER_CHECK(position_invariance, PositionInvariance)

}  // namespace samebits
