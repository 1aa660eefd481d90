// determinism: the same call twice gives the same bits, on the same stream or on a second CUDA
// stream (where a kernel's scheduling, not its inputs, would decide the order).
#include <fmt/format.h>

#include "cases/varlen.h"
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
  std::vector<AxisSpec> axes() const override {
    return {batch_axis(4),
            {"repeat",
             AxisSpec::Type::text,
             "same_stream",
             {"same_stream", "second_stream"},
             "run the second call on the same stream or on a second CUDA stream"},
            // Optional: the call under test is then one padded, packed or paged batch of the
            // items of `lengths` (as padding_invariance's batched side), not `batch` items.
            {"padding",
             AxisSpec::Type::text,
             nullptr,
             {"right", "left", "packed", "paged"},
             "optional, with lengths: repeat one batch of the items of `lengths`, padded this way "
             "(batch is then not read)",
             true},
            {"lengths",
             AxisSpec::Type::integer_list,
             nullptr,
             {},
             "optional, with padding: the items' lengths along the padded dim",
             true},
            {"pad_fill",
             AxisSpec::Type::text,
             nullptr,
             {"neutral", "canary"},
             "optional, with padding: neutral padding (the default) or NaN canaries",
             true}};
  }
  std::optional<std::string> impossible(const Point& p) const override {
    if (p.has("padding") != p.has("lengths"))
      return "determinism takes padding and lengths together, or neither";
    if (p.has("pad_fill") && !p.has("padding")) return "pad_fill needs padding and lengths";
    if (p.has("lengths")) {
      for (auto len : p.integers("lengths")) {
        if (len < 1) return fmt::format("lengths must be positive, got {}", len);
      }
    }
    return std::nullopt;
  }
  void run(CaseContext& c) const override {
    const Point& p = c.point();
    const bool padded = p.has("padding");
    std::vector<Item> items;
    if (padded) {
      std::int64_t index = 0;
      for (auto len : p.integers("lengths")) items.push_back(c.item(index++, len));
    } else {
      items = c.items(c.batch());
    }
    BatchRequest request = c.request(items);
    if (padded) {
      request.padding = parse_padding_mode(p.text("padding"));
      request.canary_padding = p.text_or("pad_fill", "neutral") == "canary";
    }
    const std::string words = padded ? fmt::format("first call, {} sequences in one {} batch",
                                                   items.size(), p.text("padding"))
                                     : fmt::format("first call, batch of {}", c.batch());
    const auto first = c.run(request, Side::baseline);
    const bool second_stream = p.text("repeat") == "second_stream";
    const auto second = second_stream ? c.run_on_second_stream(request, Side::variant)
                                      : c.run(request, Side::variant);
    c.compare(first, second, words,
              second_stream ? "second call on a second CUDA stream" : "second call, same stream");
  }
};

}  // namespace

SAMEBITS_REGISTER_CHECK(determinism, Determinism)

}  // namespace samebits
