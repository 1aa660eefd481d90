// The sum and mean ops (ATen and torch.ops.samebits) over one dim of [rows, N] items, batched as
// [B, rows, N]. dim=0 is the indexer's head sum, whose CUDA kernel follows N's alignment
// (Reduce.cuh).
#include <fmt/format.h>

#include "cases/draw.h"
#include "cases/generators.h"
#include "harness/ops/op_support.h"
#include "harness/ops/ops.h"
#include "kernels/reduce/binding.h"

namespace samebits {
namespace {

class ReduceOp final : public Op {
 public:
  explicit ReduceOp(bool mean) : mean_(mean) {}

  std::string name() const override { return mean_ ? "mean" : "sum"; }
  std::string description() const override {
    return fmt::format("x.{}(dim) of [rows, N] items, batched as [B, rows, N]", name());
  }
  std::vector<ImplSpec> implementations() const override {
    return {
        {"aten", fmt::format("at::{} over dim + 1 of the batched tensor", name()), true, true},
        {"samebits",
         fmt::format("torch.ops.samebits.{}: one fixed order of adds for every stride, layout and "
                     "batch (kernels/reduce); float32 result",
                     name()),
         true, true}};
  }
  std::vector<AxisSpec> axes() const override {
    return {
        {"rows", AxisSpec::Type::integer, 64, {}, "rows of each item"},
        {"N", AxisSpec::Type::integer, nullptr, {}, "columns of each item (its variable length)"},
        {"dim", AxisSpec::Type::integer, 0, {}, "item dim reduced: 0 (over rows) or 1 (over N)"},
        dtype_axis("float32", aten_float_dtypes()),
        generator_axis("normal")};
  }
  std::vector<std::string> outputs() const override { return {"out"}; }
  std::vector<CheckKind> checks() const override {
    return {CheckKind::determinism,         CheckKind::batch_invariance,
            CheckKind::position_invariance, CheckKind::layout_invariance,
            CheckKind::padding_invariance,  CheckKind::reference};
  }
  std::vector<LayoutKind> layouts() const override {
    return {LayoutKind::strided, LayoutKind::offset, LayoutKind::padded};
  }
  std::vector<PaddingMode> paddings() const override {
    return {PaddingMode::right, PaddingMode::left, PaddingMode::packed};
  }

  double call_elements(const Point& p, double items) const override {
    return items * static_cast<double>(p.integer("rows")) * static_cast<double>(p.integer("N"));
  }
  std::string layout_axis() const override { return "N"; }
  std::string length_axis() const override { return "N"; }
  // The bundled kernels take 16- and 32-bit floats (kernels/common/binding_support.h).
  std::optional<std::string> unsupported(const Point& p, const std::string& impl,
                                         const at::Device&) const override {
    if (impl == "samebits" && p.text("dtype") == "float64")
      return fmt::format("samebits.{} takes float32, float16 or bfloat16, not float64", name());
    return std::nullopt;
  }
  std::optional<std::string> impossible(const Point& p) const override {
    const auto dim = p.integer("dim");
    if (dim != 0 && dim != 1) return fmt::format("dim must be 0 or 1, got {}", dim);
    if (p.integer("rows") < 1 || p.integer("N") < 1) return "rows and N must be positive";
    if (dim == 1 && p.has("layout") && parse_layout(p.text("layout")).kind == LayoutKind::padded) {
      return "padded:<m> pads N and trims the output, but dim=1 reduces N";
    }
    if (dim == 1 && p.has("padding") && (p.text("padding") != "packed" || p.integer("rows") != 1)) {
      return "padding varies N, which dim=1 reduces: use dim=0, or rows=1 packed end to end "
             "(row sums of varying length)";
    }
    return std::nullopt;
  }

  Item make_item(const Point& p, const Shared&, const ItemSpec& spec, const at::Device& device,
                 at::Generator& gen) const override {
    const std::int64_t n = spec.length > 0 ? spec.length : p.integer("N");
    return {{draw(p, {p.integer("rows"), n}, device, gen)}, n};
  }

  std::vector<Outputs> run(const Point& p, const Shared&, const BatchRequest& r) const override {
    const std::int64_t dim = p.integer("dim");
    std::vector<at::Tensor> xs;
    for (const Item* item : r.items) xs.push_back(item->inputs.at(0));
    std::vector<Outputs> out;
    if (r.padding) {
      // Columns are independent for dim=0: padded columns only feed padded outputs.
      const at::Scalar fill = r.canary_padding ? canary_value() : at::Scalar(0.0);
      if (dim == 1) return packed_rows(r.impl, xs);  // rows=1, packed (impossible() says)
      if (*r.padding == PaddingMode::packed) {
        const PackedBatch packed = pack_batch(xs, 1);
        const at::Tensor all = reduce(r.impl, packed.data, 0);
        for (std::size_t b = 0; b < xs.size(); ++b) {
          out.push_back({{"out", all.narrow(0, packed.offsets[b],
                                            packed.offsets[b + 1] - packed.offsets[b])}});
        }
        return out;
      }
      const PaddedBatch padded = pad_batch(xs, 1, *r.padding, fill);
      const at::Tensor all = reduce(r.impl, padded.data, 1);
      for (std::size_t b = 0; b < xs.size(); ++b) {
        out.push_back({{"out", all[b].narrow(0, padded.starts[b], padded.lengths[b])}});
      }
      return out;
    }
    const at::Tensor batch = at::stack(xs);
    at::Tensor all;
    if (r.layout.kind == LayoutKind::padded) {
      const std::int64_t n = batch.size(2);
      all =
          reduce(r.impl, pad_to_multiple(batch, r.layout.amount, 2, 0.0), dim + 1).narrow(1, 0, n);
    } else {
      all = reduce(r.impl, place(batch, r.layout, 2), dim + 1);
    }
    for (std::int64_t b = 0; b < all.size(0); ++b) out.push_back({{"out", all[b]}});
    return out;
  }

  // The reduce kernel follows the inner dim's length, the row stride and the base address.
  std::vector<std::pair<std::string, std::int64_t>> dispatch_properties(
      const Point& p, const BatchRequest& r) const override {
    auto props = Op::dispatch_properties(p, r);
    const std::int64_t n = p.integer("N");
    std::int64_t stride = n;
    if (r.layout.kind == LayoutKind::strided) stride = n + r.layout.amount;
    if (r.layout.kind == LayoutKind::padded)
      stride = (n + r.layout.amount - 1) / r.layout.amount * r.layout.amount;
    props.emplace_back("row_stride", stride);
    props.emplace_back("storage_offset", r.layout.kind == LayoutKind::offset ? r.layout.amount : 0);
    return props;
  }

  Outputs reference(const Point& p, const Shared&, const Item& item) const override {
    return {{"out", reduce("aten", item.inputs.at(0).cpu().to(at::kDouble), p.integer("dim"))}};
  }

 private:
  // Items of one row and varying length packed end to end into one 1-D tensor and reduced row by
  // row in one call: samebits.sum_varlen, or ATen's segment_reduce (its varlen reduction).
  std::vector<Outputs> packed_rows(const std::string& impl,
                                   const std::vector<at::Tensor>& xs) const {
    std::vector<at::Tensor> rows;
    std::vector<std::int64_t> offsets{0};
    for (const at::Tensor& x : xs) {
      rows.push_back(x.reshape(-1));
      offsets.push_back(offsets.back() + x.numel());
    }
    const at::Tensor values = at::cat(rows);
    const at::Tensor off = at::tensor(offsets, at::kLong).to(values.device());
    at::Tensor all;
    {
      const ComputeScope under_test;
      all = impl == "samebits"
                ? invariant_reduce_varlen(values, off, mean_)
                : at::segment_reduce(values, mean_ ? "mean" : "sum", /*lengths=*/std::nullopt,
                                     /*indices=*/std::nullopt, /*offsets=*/off);
    }
    std::vector<Outputs> out;
    for (std::size_t b = 0; b < xs.size(); ++b) {
      out.push_back({{"out", all.narrow(0, static_cast<std::int64_t>(b), 1)}});
    }
    return out;
  }

  at::Tensor reduce(const std::string& impl, const at::Tensor& x, std::int64_t dim) const {
    const ComputeScope under_test;
    if (impl == "samebits") return invariant_reduce(x, dim, mean_);
    return mean_ ? x.mean(dim) : x.sum(dim);
  }
  bool mean_;
};

}  // namespace

std::unique_ptr<Op> make_sum_op() {
  return std::make_unique<ReduceOp>(false);
}
std::unique_ptr<Op> make_mean_op() {
  return std::make_unique<ReduceOp>(true);
}

}  // namespace samebits
