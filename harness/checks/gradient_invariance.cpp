// gradient_invariance: the gradient of an item's inputs, for fixed upstream gradients, alone vs
// inside a batch (sizes, positions), or each sequence alone vs one padded or packed batch.
#include <fmt/format.h>

#include "harness/checks/batch_axes.h"
#include "harness/checks/item_gradients.h"

namespace samebits {
namespace {

// What a training step needs of its backward. Only the items' own inputs are compared: a shared
// weight's gradient (computed all the same) sums over the batch, so it is not invariant.
class GradientInvariance final : public GradientCheck {
 public:
  CheckKind kind() const override { return CheckKind::gradient_invariance; }
  std::string compares() const override {
    return "the gradient of the item's inputs alone vs inside a batch of `batch` at `position`; "
           "with padding and lengths, each sequence's alone vs one padded, packed or paged batch";
  }
  std::vector<AxisSpec> axes() const override {
    std::vector<AxisSpec> axes = {batch_axis(8), position_axis()};
    for (auto& a : optional_padding_axes("each item alone vs one batch")) axes.push_back(a);
    return axes;
  }
  std::optional<std::string> impossible(const Point& p) const override {
    return optional_padding_impossible(p, "gradient_invariance");
  }
  void run(CaseContext& c) const override {
    if (c.point().has("padding")) {
      const std::vector<Item> items = c.items_of_lengths();
      std::vector<Outputs> alone;
      for (std::size_t i = 0; i < items.size(); ++i) {
        alone.push_back(item_gradients(c, c.request({&items[i]}), {static_cast<std::int64_t>(i)},
                                       Side::baseline)
                            .at(0));
      }
      const auto together =
          item_gradients(c, c.padded_request(items), first_indices(items.size()), Side::variant);
      c.compare(alone, together, "each sequence's input gradients alone",
                fmt::format("the same in one {} batch ({} padding)", c.point().text("padding"),
                            c.point().text_or("pad_fill", "neutral")));
      return;
    }
    const Item probe = c.item(0);
    const auto alone = item_gradients(c, c.request({&probe}), {0}, Side::baseline);
    const std::int64_t pos = position_index(c.point().text("position"), c.batch());
    // The probe is item 0 wherever it sits; its neighbours are items 1, 2, ... in batch order.
    std::vector<std::int64_t> indices;
    std::int64_t neighbour = 1;
    for (std::int64_t i = 0; i < c.batch(); ++i) indices.push_back(i == pos ? 0 : neighbour++);
    const auto batched =
        item_gradients(c, c.request(c.batch_around(probe, c.batch(), pos)), indices, Side::variant);
    c.compare(alone, {batched.at(static_cast<std::size_t>(pos))},
              "the item's input gradients alone (batch of 1)",
              fmt::format("the same at position {} of a batch of {}", pos, c.batch()));
  }
};

}  // namespace

SAMEBITS_REGISTER_CHECK(gradient_invariance, GradientInvariance)

}  // namespace samebits
