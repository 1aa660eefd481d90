// determinism: the same call twice gives the same bits, on the same stream or on a second CUDA
// stream (where a kernel's scheduling, not its inputs, would decide the order).
#include "harness/checks/batch_axes.h"
#include "harness/checks/check.h"

namespace samebits {
namespace {

class Determinism final : public Check {
 public:
  CheckKind kind() const override { return CheckKind::determinism; }
  std::string compares() const override {
    return "the same call twice (repeat: same_stream, or second_stream on CUDA); with padding "
           "and lengths, one padded, packed or paged batch";
  }
  std::vector<AxisSpec> axes() const override { return repeat_axes("call"); }
  std::optional<std::string> impossible(const Point& p) const override {
    return optional_padding_impossible(p, "determinism");
  }
  void run(CaseContext& c) const override {
    const std::vector<Item> items = c.call_items();
    const BatchRequest request = c.call_request(items);
    const auto first = c.run(request, Side::baseline);
    const bool second_stream = c.point().text("repeat") == "second_stream";
    const auto second = second_stream ? c.run_on_second_stream(request, Side::variant)
                                      : c.run(request, Side::variant);
    c.compare(first, second, "first call, " + c.call_words(items),
              second_stream ? "second call on a second CUDA stream" : "second call, same stream");
  }
};

}  // namespace

SAMEBITS_REGISTER_CHECK(determinism, Determinism)

}  // namespace samebits
