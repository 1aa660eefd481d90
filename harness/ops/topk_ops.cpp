// Top-k and sort of [N] rows, batched as [B, N] (ATen and torch.ops.samebits.topk): selections
// whose indices depend on how ties are broken, which differs between at::topk and the sorts.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "cases/dtypes.h"
#include "cases/generators.h"
#include "harness/ops/op_support.h"
#include "harness/ops/ops.h"
#include "kernels/topk/binding.h"

namespace samebits {
namespace {

constexpr const char* kTopk = "aten.topk";
constexpr const char* kStableArgsort = "aten.stable_argsort";
constexpr const char* kSamebitsTopk = "samebits";
constexpr const char* kStableSort = "aten.stable";
constexpr const char* kUnstableSort = "aten.unstable";

// A padding value that sorts after every real value: -inf for descending order, +inf ascending.
at::Scalar sorts_last(bool descending) {
  const double inf = std::numeric_limits<double>::infinity();
  return descending ? -inf : inf;
}

std::vector<at::Tensor> item_rows(const BatchRequest& r) {
  std::vector<at::Tensor> rows;
  for (const Item* item : r.items) rows.push_back(item->inputs.at(0));
  return rows;
}

Item make_row(const Point& p, const ItemSpec& spec, const at::Device& device, at::Generator& gen) {
  const std::int64_t n = spec.length > 0 ? spec.length : p.integer("N");
  return {{generate(p.text("generator"), {n}, parse_dtype(p.text("dtype")), device, gen)}, n};
}

// Replaces round(fraction * length) values of the row, at random places, by a positive quiet NaN.
// Drawn after the values, and only when the fraction is positive, so rows without NaNs keep the
// bits they had before this axis existed.
void plant_nans(at::Tensor& row, double fraction, const at::Device& device, at::Generator& gen) {
  const std::int64_t length = row.size(0);
  const auto count = static_cast<std::int64_t>(std::llround(fraction * length));
  if (count == 0) return;
  const at::Tensor places =
      at::randperm(length, gen, at::TensorOptions().dtype(at::kLong).device(device))
          .narrow(0, 0, count);
  row.index_fill_(0, places, std::numeric_limits<double>::quiet_NaN());
}

// The batch of rows laid out as the request says; padded layouts pad the end of each row with
// `fill`, which the caller's selection must never return.
at::Tensor laid_out_rows(const BatchRequest& r, const at::Scalar& fill) {
  const at::Tensor batch = at::stack(item_rows(r));
  if (r.layout.kind == LayoutKind::padded) return pad_to_multiple(batch, r.layout.amount, 1, fill);
  return place(batch, r.layout, 1);
}

// Splits [B, k] values and indices into per-item outputs, moving each row's indices back by
// where the item starts in its padded row (left padding).
std::vector<Outputs> per_item(const at::Tensor& values, const at::Tensor& indices,
                              const std::vector<std::int64_t>& starts) {
  std::vector<Outputs> out;
  for (std::int64_t b = 0; b < values.size(0); ++b) {
    const std::int64_t start = starts.empty() ? 0 : starts[static_cast<std::size_t>(b)];
    out.push_back({{"values", values[b]}, {"indices", start ? indices[b] - start : indices[b]}});
  }
  return out;
}

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
            dtype_axis("float32"),
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
    Item item = make_row(p, spec, device, gen);
    plant_nans(item.inputs.at(0), p.real("nans"), device, gen);
    return item;
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
            dtype_axis("float32"),
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

  std::optional<std::string> impossible(const Point& p) const override {
    if (p.integer("N") < 1) return "N must be positive";
    return std::nullopt;
  }

  Item make_item(const Point& p, const Shared&, const ItemSpec& spec, const at::Device& device,
                 at::Generator& gen) const override {
    return make_row(p, spec, device, gen);
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

std::unique_ptr<Op> make_topk_op() {
  return std::make_unique<TopkOp>();
}
std::unique_ptr<Op> make_sort_op() {
  return std::make_unique<SortOp>();
}

}  // namespace samebits
