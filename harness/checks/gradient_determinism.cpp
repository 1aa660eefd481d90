// gradient_determinism: the items' input gradients, for fixed upstream gradients, from the same
// forward and backward twice, on the same stream or a second CUDA stream (a backward's atomics).
#include "harness/checks/batch_axes.h"
#include "harness/checks/item_gradients.h"

namespace samebits {
namespace {

class GradientDeterminism final : public GradientCheck {
 public:
  CheckKind kind() const override { return CheckKind::gradient_determinism; }
  std::string compares() const override {
    return "the items' input gradients from the same call and backward twice (repeat: "
           "same_stream, or second_stream on CUDA); with padding and lengths, one padded, packed "
           "or paged batch";
  }
  std::vector<AxisSpec> axes() const override { return repeat_axes("call and backward"); }
  std::optional<std::string> impossible(const Point& p) const override {
    return optional_padding_impossible(p, "gradient_determinism");
  }
  void run(CaseContext& c) const override {
    const std::vector<Item> items = c.call_items();
    const BatchRequest request = c.call_request(items);
    const auto indices = first_indices(items.size());
    const auto first = item_gradients(c, request, indices, Side::baseline);
    const bool second_stream = c.point().text("repeat") == "second_stream";
    const auto second =
        second_stream
            ? c.on_second_stream([&] { return item_gradients(c, request, indices, Side::variant); })
            : item_gradients(c, request, indices, Side::variant);
    c.compare(first, second, "input gradients, first call and backward, " + c.call_words(items),
              second_stream ? "second call and backward on a second CUDA stream"
                            : "second call and backward, same stream");
  }
};

}  // namespace

SAMEBITS_REGISTER_CHECK(gradient_determinism, GradientDeterminism)

}  // namespace samebits
