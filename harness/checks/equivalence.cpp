// equivalence: the case's implementation vs the one the check names in `against`, on the same
// batch: two ways of computing one thing that a contract says agree (or do not).
#include "harness/checks/batch_axes.h"
#include "harness/checks/check.h"

namespace samebits {
namespace {

class Equivalence final : public Check {
 public:
  CheckKind kind() const override { return CheckKind::equivalence; }
  std::string compares() const override {
    return "the implementation vs the one named in `against`";
  }
  std::vector<AxisSpec> axes() const override { return {batch_axis(1)}; }
  void run(CaseContext& c) const override {
    const std::string& against = c.spec().check->against;
    if (auto why = c.spec().op->unsupported(c.point(), against, c.device()))
      throw Unsupported(against + ": " + *why);
    const auto items = c.items(c.batch());
    const auto theirs = c.run(c.request(items, against), Side::baseline);
    const auto ours = c.run(c.request(items), Side::variant);
    c.compare(theirs, ours, against, c.spec().impl);
  }
};

}  // namespace

SAMEBITS_REGISTER_CHECK(equivalence, Equivalence)

}  // namespace samebits
