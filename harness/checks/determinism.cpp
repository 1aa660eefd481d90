// determinism: the same call twice gives the same bits, on the same stream or on a second CUDA
// stream (where a kernel's scheduling, not its inputs, would decide the order).
#include <fmt/format.h>

#include "harness/checks/batch_axes.h"
#include "harness/checks/check.h"

namespace samebits {
namespace {

class Determinism final : public Check {
 public:
  CheckKind kind() const override { return CheckKind::determinism; }
  std::string compares() const override {
    return "the same call twice (repeat: same_stream, or second_stream on CUDA)";
  }
  std::vector<AxisSpec> axes() const override {
    return {batch_axis(4),
            {"repeat",
             AxisSpec::Type::text,
             "same_stream",
             {"same_stream", "second_stream"},
             "run the second call on the same stream or on a second CUDA stream"}};
  }
  void run(CaseContext& c) const override {
    const auto items = c.items(c.batch());
    const BatchRequest request = c.request(items);
    const auto first = c.run(request, Side::baseline);
    const bool second_stream = c.point().text("repeat") == "second_stream";
    const auto second = second_stream ? c.run_on_second_stream(request, Side::variant)
                                      : c.run(request, Side::variant);
    c.compare(first, second, fmt::format("first call, batch of {}", c.batch()),
              second_stream ? "second call on a second CUDA stream" : "second call, same stream");
  }
};

}  // namespace

const Check& determinism_check() {
  static const Determinism check;
  return check;
}

}  // namespace samebits
