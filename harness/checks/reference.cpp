// reference: the implementation vs the op's float64 reference of each item (on the CPU, or where
// the item lives for ops that compute it there), within the bound the check's comparison states
// (or bit for bit on inputs whose result is exact).
#include "harness/checks/batch_axes.h"
#include "harness/checks/check.h"

namespace samebits {
namespace {

class Reference final : public Check {
 public:
  CheckKind kind() const override { return CheckKind::reference; }
  std::string compares() const override { return "the implementation vs a float64 reference"; }
  std::vector<AxisSpec> axes() const override { return {batch_axis(1)}; }
  void run(CaseContext& c) const override {
    const auto items = c.items(c.batch());
    std::vector<Outputs> reference;
    for (const auto& item : items)
      reference.push_back(c.spec().op->reference(c.point(), c.shared(), item));
    const auto ours = c.run(c.request(items), Side::variant);
    bool on_device = false;
    for (auto& outs : reference) {
      for (auto& o : outs) {
        on_device = on_device || o.value.device() == c.device();
        o.value = o.value.to(c.device());
      }
    }
    c.compare(
        reference, ours,
        on_device && c.device().is_cuda() ? "float64 CUDA reference" : "float64 CPU reference",
        c.spec().impl);
  }
};

}  // namespace

SAMEBITS_REGISTER_CHECK(reference, Reference)

}  // namespace samebits
