// The softmax and log_softmax ops (ATen and torch.ops.samebits) of [N] rows, batched as [B, N]
// over dim -1: the row normalisation whose max and sum reductions must not depend on the rows
// beside it, their stride or padding.
#include <fmt/format.h>

#include <limits>
#include <optional>

#include "cases/draw.h"
#include "cases/generators.h"
#include "harness/ops/op_support.h"
#include "harness/ops/ops.h"
#include "kernels/softmax/binding.h"

namespace samebits {
namespace {

// -inf: exp(-inf - max) == 0, so a padded slot adds nothing to the row's sum and never wins its
// max.
at::Scalar minus_infinity() {
  return -std::numeric_limits<double>::infinity();
}

// The output dtype the point asks for: none (the input's) or float32, the one the ops' dtype
// argument takes besides the input's (softmax(x, -1, dtype=torch.float32) of 16-bit logits).
std::optional<at::ScalarType> out_dtype(const Point& p) {
  if (p.text_or("out_dtype", "input") == "float32") return at::kFloat;
  return std::nullopt;
}

class SoftmaxOp final : public Op {
 public:
  explicit SoftmaxOp(bool log) : log_(log) {}

  std::string name() const override { return log_ ? "log_softmax" : "softmax"; }
  std::string description() const override {
    return fmt::format("at::{}(x, -1) of [N] rows, batched as [B, N]; padding holds -inf", name());
  }
  std::vector<ImplSpec> implementations() const override {
    return {
        {"aten", fmt::format("at::{} over the last dim, in the input dtype or out_dtype's", name()),
         true, true},
        {"samebits",
         fmt::format("torch.ops.samebits.{}: one order per row length (kernels/softmax), exp and "
                     "log of its own with the same bits on CPU and CUDA; in the input dtype or "
                     "out_dtype's",
                     name()),
         true, true}};
  }
  std::vector<AxisSpec> axes() const override {
    return {{"N", AxisSpec::Type::integer, nullptr, {}, "row length (the normalised dim)"},
            dtype_axis("float32", aten_float_dtypes()),
            generator_axis("normal"),
            {"out_dtype",
             AxisSpec::Type::text,
             "input",
             {"input", "float32"},
             "output dtype: the input's, or float32 (the ops' dtype argument)"}};
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
  // Packed rows would need a segmented softmax, which ATen does not have.
  std::vector<PaddingMode> paddings() const override {
    return {PaddingMode::right, PaddingMode::left};
  }

  double call_elements(const Point& p, double items) const override {
    return items * static_cast<double>(p.integer("N"));
  }
  std::string layout_axis() const override { return "N"; }
  std::string length_axis() const override { return "N"; }
  // The bundled kernel takes 16- and 32-bit floats (kernels/common/binding_support.h).
  std::optional<std::string> unsupported(const Point& p, const std::string& impl,
                                         const at::Device&) const override {
    if (impl == "samebits" && p.text("dtype") == "float64")
      return fmt::format("samebits.{} takes float32, float16 or bfloat16, not float64", name());
    return std::nullopt;
  }
  std::optional<std::string> impossible(const Point& p) const override {
    if (p.integer("N") < 1) return "N must be positive";
    if (p.has("padding") && p.text_or("pad_fill", "neutral") == "canary") {
      return fmt::format(
          "{} takes no mask, so a NaN canary in the padding reaches every element of its row; "
          "use pad_fill \"neutral\" (-inf)",
          name());
    }
    return std::nullopt;
  }

  Item make_item(const Point& p, const Shared&, const ItemSpec& spec, const at::Device& device,
                 at::Generator& gen) const override {
    const std::int64_t n = spec.length > 0 ? spec.length : p.integer("N");
    return {{draw(p, {n}, device, gen)}, n};
  }

  std::vector<Outputs> run(const Point& p, const Shared&, const BatchRequest& r) const override {
    const std::string& impl = r.impl;
    const std::optional<at::ScalarType> dtype = out_dtype(p);
    std::vector<at::Tensor> rows;
    for (const Item* item : r.items) rows.push_back(item->inputs.at(0));
    std::vector<Outputs> out;
    if (r.padding) {
      const PaddedBatch padded = pad_batch(rows, 0, *r.padding, minus_infinity());
      const at::Tensor all = normalise(impl, padded.data, dtype);
      for (std::size_t b = 0; b < rows.size(); ++b) {
        out.push_back({{"out", all[static_cast<std::int64_t>(b)].narrow(0, padded.starts[b],
                                                                        padded.lengths[b])}});
      }
      return out;
    }
    const at::Tensor batch = at::stack(rows);
    at::Tensor all;
    if (r.layout.kind == LayoutKind::padded) {
      const std::int64_t n = batch.size(1);
      all = normalise(impl, pad_to_multiple(batch, r.layout.amount, 1, minus_infinity()), dtype)
                .narrow(1, 0, n);
    } else {
      all = normalise(impl, place(batch, r.layout, 1), dtype);
    }
    for (std::int64_t b = 0; b < all.size(0); ++b) out.push_back({{"out", all[b]}});
    return out;
  }

  Outputs reference(const Point&, const Shared&, const Item& item) const override {
    return {{"out", normalise("aten", item.inputs.at(0).cpu().to(at::kDouble), std::nullopt)}};
  }

 private:
  // `dtype`: the output's, where not x's.
  at::Tensor normalise(const std::string& impl, const at::Tensor& x,
                       std::optional<at::ScalarType> dtype) const {
    const ComputeScope under_test;
    if (impl == "samebits") return invariant_softmax(x, dtype, log_);
    return log_ ? at::log_softmax(x, -1, dtype) : at::softmax(x, -1, dtype);
  }
  bool log_;
};

}  // namespace

std::unique_ptr<Op> make_softmax_op() {
  return std::make_unique<SoftmaxOp>(false);
}
std::unique_ptr<Op> make_log_softmax_op() {
  return std::make_unique<SoftmaxOp>(true);
}

}  // namespace samebits
