// padding_invariance: each variable-length item alone vs all of them in one right- or
// left-padded (masked), packed or paged batch, with neutral padding or NaN canaries that must not
// leak.
#include <fmt/format.h>

#include "harness/checks/check.h"

namespace samebits {
namespace {

class PaddingInvariance final : public Check {
 public:
  CheckKind kind() const override { return CheckKind::padding_invariance; }
  std::string compares() const override {
    return "each sequence alone vs one right/left-padded (masked), packed or paged batch";
  }
  std::vector<AxisSpec> axes() const override {
    return {{"padding",
             AxisSpec::Type::text,
             nullptr,
             {"right", "left", "packed", "paged"},
             "how the items share one batch"},
            {"lengths",
             AxisSpec::Type::integer_list,
             nullptr,
             {},
             "the items' lengths along the padded dim"},
            {"pad_fill",
             AxisSpec::Type::text,
             "neutral",
             {"neutral", "canary"},
             "padding holds the op's neutral value, or NaN canaries that must not leak"}};
  }
  std::optional<std::string> impossible(const Point& p) const override {
    for (auto len : p.integers("lengths")) {
      if (len < 1) return fmt::format("lengths must be positive, got {}", len);
    }
    return std::nullopt;
  }
  void run(CaseContext& c) const override {
    const Point& p = c.point();
    const std::vector<Item> items = c.items_of_lengths();
    std::vector<Outputs> alone;
    for (const auto& item : items) alone.push_back(c.run(c.request({&item}), Side::baseline).at(0));
    const auto batched = c.run(c.padded_request(items), Side::variant);
    c.compare(alone, batched, "each sequence alone",
              fmt::format("the sequences in one {} batch ({} padding)", p.text("padding"),
                          p.text("pad_fill")));
  }
};

}  // namespace

SAMEBITS_REGISTER_CHECK(padding_invariance, PaddingInvariance)

}  // namespace samebits
