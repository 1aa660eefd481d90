// batch_invariance: the item under test alone vs the same item inside a batch of random
// neighbours, the property an inference engine needs whatever else shares the batch.
#include <fmt/format.h>

#include "harness/checks/batch_axes.h"
#include "harness/checks/check.h"

namespace samebits {
namespace {

class BatchInvariance final : public Check {
 public:
  CheckKind kind() const override { return CheckKind::batch_invariance; }
  std::string compares() const override {
    return "the item alone vs inside a batch of `batch` with random neighbours";
  }
  std::vector<AxisSpec> axes() const override { return {batch_axis(8), position_axis()}; }
  void run(CaseContext& c) const override {
    const Item probe = c.item(0);
    const auto alone = c.run(c.request({&probe}), Side::baseline);
    const std::int64_t pos = position_index(c.point().text("position"), c.batch());
    const auto items = c.batch_around(probe, c.batch(), pos);
    const auto batched = c.run(c.request(items), Side::variant);
    c.compare(alone, {batched.at(static_cast<std::size_t>(pos))}, "item alone (batch of 1)",
              fmt::format("item at position {} of a batch of {}", pos, c.batch()));
  }
};

}  // namespace

SAMEBITS_REGISTER_CHECK(batch_invariance, BatchInvariance)

}  // namespace samebits
