// Top-k of [N] rows, batched as [B, N] (at::topk, a stable argsort, torch.ops.samebits.topk):
// selections whose indices depend on how ties are broken, which differs between at::topk and sorts.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "cases/draw.h"
#include "cases/generators.h"
#include "harness/ops/op_support.h"
#include "harness/ops/ops.h"
#include "harness/ops/row_batch.h"
#include "kernels/topk/binding.h"
#include "kernels/topk/invariant_topk.h"

namespace samebits {
namespace {

constexpr const char* kTopk = "aten.topk";
constexpr const char* kStableArgsort = "aten.stable_argsort";
constexpr const char* kSamebitsTopk = "samebits";

class TopkOp final : public Op {
 public:
  std::string name() const override { return "topk"; }
  std::string description() const override {
    return "the k largest values of [N] rows and their indices, sorted descending, batched as "
           "[B, N]; padding holds -inf; packed rows go end to end (samebits only)";
  }
  std::vector<ImplSpec> implementations() const override {
    return {{kTopk, "at::topk(x, k, -1, largest=true, sorted=true)", true, true},
            {kStableArgsort,
             "at::argsort(x, stable=true, -1, descending=true)[:, :k], values gathered: ties in "
             "ascending index order",
             true, true},
            {kSamebitsTopk,
             "torch.ops.samebits.topk (packed rows: topk_varlen): value descending, ties in "
             "ascending index order (a stable descending sort's order), NaN above +inf, -0.0 "
             "tied with +0.0, values with their input bits (kernels/topk)",
             true, true}};
  }
  std::vector<AxisSpec> axes() const override {
    return {{"N", AxisSpec::Type::integer, nullptr, {}, "row length"},
            {"k", AxisSpec::Type::integer, nullptr, {}, "how many values to select"},
            {"nans",
             AxisSpec::Type::number,
             0.0,
             {},
             "fraction of each row's values replaced by NaN (positive, quiet): the stable order "
             "puts NaN above +inf with every NaN tied"},
            dtype_axis("float32", aten_float_dtypes()),
            generator_axis("normal")};
  }
  std::vector<std::string> outputs() const override { return {"values", "indices"}; }
  std::vector<CheckKind> checks() const override {
    return {
        CheckKind::determinism,       CheckKind::batch_invariance,   CheckKind::position_invariance,
        CheckKind::layout_invariance, CheckKind::padding_invariance, CheckKind::equivalence,
        CheckKind::reference};
  }
  std::vector<LayoutKind> layouts() const override {
    return {LayoutKind::strided, LayoutKind::offset, LayoutKind::padded};
  }
  // Packed rows need a segmented top-k: samebits has one (topk_varlen), ATen does not.
  std::vector<PaddingMode> paddings() const override {
    return {PaddingMode::right, PaddingMode::left, PaddingMode::packed};
  }

  double call_elements(const Point& p, double items) const override {
    return items * static_cast<double>(p.integer("N"));
  }
  std::string layout_axis() const override { return "N"; }
  std::string length_axis() const override { return "N"; }
  std::optional<std::string> impossible(const Point& p) const override {
    const std::int64_t k = p.integer("k");
    if (k < 1) return fmt::format("k must be positive, got {}", k);
    const double nans = p.real("nans");
    if (!(nans >= 0.0 && nans <= 1.0))
      return fmt::format("nans is a fraction in [0, 1], got {}", nans);
    if (p.has("lengths")) {
      const auto lengths = p.integers("lengths");
      const std::int64_t shortest = *std::min_element(lengths.begin(), lengths.end());
      if (k > shortest) {
        return fmt::format(
            "k={} exceeds the shortest row (lengths give {}): it would select padding", k,
            shortest);
      }
      if (p.text_or("pad_fill", "neutral") == "canary") {
        return "top-k takes no mask, so NaN canaries in the padding would be selected first; use "
               "pad_fill \"neutral\" (-inf)";
      }
    } else if (k > p.integer("N")) {
      return fmt::format("k={} exceeds N={}", k, p.integer("N"));
    }
    return std::nullopt;
  }

  std::optional<std::string> unsupported(const Point& p, const std::string& impl,
                                         const at::Device&) const override {
    // What the bundled kernels take (kernels/topk/invariant_topk.h, binding_support.h).
    if (impl == kSamebitsTopk) {
      if (p.text("dtype") == "float64")
        return "samebits.topk takes float32, float16 or bfloat16, not float64";
      if (p.integer("k") > kernels::kRadixSelectMaxK) {
        return fmt::format("samebits.topk takes k <= {} (radix_select's limit), not k={}",
                           kernels::kRadixSelectMaxK, p.integer("k"));
      }
      if (p.integer("N") > kernels::kMaxRowLength) {
        return fmt::format("samebits.topk takes rows of at most {} elements, not N={}",
                           kernels::kMaxRowLength, p.integer("N"));
      }
    }
    if (impl != kSamebitsTopk && p.has("padding") && p.text("padding") == "packed") {
      return fmt::format(
          "{} has no segmented form: packed rows need a top-k per segment "
          "(torch.ops.samebits.topk_varlen)",
          impl);
    }
    return std::nullopt;
  }

  Item make_item(const Point& p, const Shared&, const ItemSpec& spec, const at::Device& device,
                 at::Generator& gen) const override {
    const std::int64_t n = spec.length > 0 ? spec.length : p.integer("N");
    at::Tensor row = draw(p, {n}, device, gen);
    // Planted after the values are drawn: rows without NaNs keep their bits.
    plant(row, p.real("nans"), std::numeric_limits<double>::quiet_NaN(), device, gen);
    return {{row}, n};
  }

  std::vector<Outputs> run(const Point& p, const Shared&, const BatchRequest& r) const override {
    const std::int64_t k = p.integer("k");
    if (r.padding == PaddingMode::packed) {
      if (r.impl != kSamebitsTopk) throw Unsupported(r.impl + " has no segmented top-k");
      const PackedBatch packed = pack_batch(item_rows(r), 0);
      const at::Tensor offsets =
          at::tensor(packed.offsets, at::TensorOptions().dtype(at::kLong)).to(packed.data.device());
      std::int64_t longest = 0;
      for (std::size_t b = 0; b + 1 < packed.offsets.size(); ++b)
        longest = std::max(longest, packed.offsets[b + 1] - packed.offsets[b]);
      const ComputeScope under_test;
      const auto [values, indices] = invariant_topk_varlen(packed.data, offsets, k, longest);
      return per_item(values, indices, {});
    }
    if (r.padding) {
      const PaddedBatch padded = pad_batch(item_rows(r), 0, *r.padding, sorts_last(true));
      const auto [values, indices] = select(padded.data, k, r.impl);
      return per_item(values, indices, padded.starts);
    }
    const auto [values, indices] = select(laid_out_rows(r, sorts_last(true)), k, r.impl);
    return per_item(values, indices, {});
  }

  // Descending with ties in ascending index order: the order a stable sort promises.
  Outputs reference(const Point& p, const Shared&, const Item& item) const override {
    const at::Tensor x = item.inputs.at(0).cpu().to(at::kDouble);
    const at::Tensor indices =
        at::argsort(x, /*stable=*/true, 0, /*descending=*/true).narrow(0, 0, p.integer("k"));
    return {{"values", x.gather(0, indices)}, {"indices", indices}};
  }

 private:
  static std::pair<at::Tensor, at::Tensor> select(const at::Tensor& rows, std::int64_t k,
                                                  const std::string& impl) {
    const ComputeScope under_test;
    if (impl == kTopk) {
      auto [values, indices] = at::topk(rows, k, -1, /*largest=*/true, /*sorted=*/true);
      return {values, indices};
    }
    if (impl == kSamebitsTopk) {
      auto [values, indices] = invariant_topk(rows, k);
      return {values, indices};
    }
    const at::Tensor indices =
        at::argsort(rows, /*stable=*/true, -1, /*descending=*/true).narrow(1, 0, k);
    return {rows.gather(1, indices), indices};
  }
};

}  // namespace

std::unique_ptr<Op> make_topk_op() {
  return std::make_unique<TopkOp>();
}

}  // namespace samebits
