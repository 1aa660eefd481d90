// Sort of [N] rows, batched as [B, N] (at::sort, stable and not): the values and the permutation,
// whose order under ties a stable sort promises and an unstable one does not.
#include <fmt/format.h>

#include "cases/draw.h"
#include "harness/ops/op_support.h"
#include "harness/ops/ops.h"
#include "harness/ops/row_batch.h"

namespace samebits {
namespace {

constexpr const char* kStableSort = "aten.stable";
constexpr const char* kUnstableSort = "aten.unstable";

class SortOp final : public Op {
 public:
  std::string name() const override { return "sort"; }
  std::string description() const override {
    return "at::sort of [N] rows, batched as [B, N]: values and the permutation (indices)";
  }
  std::vector<ImplSpec> implementations() const override {
    return {{kStableSort, "at::sort(x, stable=true, -1, descending): ties keep index order", true,
             true},
            {kUnstableSort, "at::sort(x, stable=false, -1, descending): tie order unspecified",
             true, true}};
  }
  std::vector<AxisSpec> axes() const override {
    return {{"N", AxisSpec::Type::integer, nullptr, {}, "row length"},
            {"descending", AxisSpec::Type::flag, true, {}, "sort largest first"},
            dtype_axis("float32", aten_float_dtypes()),
            generator_axis("normal")};
  }
  std::vector<std::string> outputs() const override { return {"values", "indices"}; }
  std::vector<CheckKind> checks() const override {
    return {CheckKind::determinism,         CheckKind::batch_invariance,
            CheckKind::position_invariance, CheckKind::layout_invariance,
            CheckKind::equivalence,         CheckKind::reference};
  }
  std::vector<LayoutKind> layouts() const override {
    return {LayoutKind::strided, LayoutKind::offset, LayoutKind::padded};
  }

  double call_elements(const Point& p, double items) const override {
    return items * static_cast<double>(p.integer("N"));
  }
  std::string layout_axis() const override { return "N"; }
  std::optional<std::string> impossible(const Point& p) const override {
    if (p.integer("N") < 1) return "N must be positive";
    return std::nullopt;
  }

  Item make_item(const Point& p, const Shared&, const ItemSpec& spec, const at::Device& device,
                 at::Generator& gen) const override {
    const std::int64_t n = spec.length > 0 ? spec.length : p.integer("N");
    return {{draw(p, {n}, device, gen)}, n};
  }

  std::vector<Outputs> run(const Point& p, const Shared&, const BatchRequest& r) const override {
    const bool descending = p.flag_or("descending", true);
    const std::int64_t n = p.integer("N");
    // Padded rows sort their padding last, so the first N places are the row's own.
    const at::Tensor rows = laid_out_rows(r, sorts_last(descending));
    const ComputeScope under_test;
    const auto [values, indices] = at::sort(rows, r.impl == kStableSort, -1, descending);
    return per_item(values.narrow(1, 0, n), indices.narrow(1, 0, n), {});
  }

  Outputs reference(const Point& p, const Shared&, const Item& item) const override {
    const at::Tensor x = item.inputs.at(0).cpu().to(at::kDouble);
    auto [values, indices] = at::sort(x, /*stable=*/true, 0, p.flag_or("descending", true));
    return {{"values", values}, {"indices", indices}};
  }
};

}  // namespace

std::unique_ptr<Op> make_sort_op() {
  return std::make_unique<SortOp>();
}

}  // namespace samebits
