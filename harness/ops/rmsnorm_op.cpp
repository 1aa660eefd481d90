// RMSNorm of [D] rows with a shared weight, batched as [B, D] (ATen composed, at::rms_norm and
// samebits), and its fused residual form add_rmsnorm, whose h = x + residual is an output too.
#include <fmt/format.h>

#include <tuple>

#include "cases/draw.h"
#include "cases/dtypes.h"
#include "cases/generators.h"
#include "harness/ops/op_support.h"
#include "harness/ops/ops.h"
#include "kernels/norm/binding.h"

namespace samebits {
namespace {

constexpr const char* kComposed = "aten.composed";
constexpr const char* kRmsNorm = "aten.rms_norm";
constexpr const char* kSamebits = "samebits";

class RmsNormOp final : public Op {
 public:
  // add: each item is (x, residual), h = x + residual in x's dtype is normalised, and the outputs
  // are y and h (add_rms_norm); otherwise each item is x and the output is y.
  explicit RmsNormOp(bool add) : add_(add) {}

  std::string name() const override { return add_ ? "add_rmsnorm" : "rmsnorm"; }
  std::string description() const override {
    if (add_) {
      return "the fused residual form of RMSNorm: h = x + residual in x's dtype, y = h * "
             "rsqrt(mean(h^2, -1) + eps) * w, of [D] rows (x and its residual) with a shared "
             "weight w [D], batched as [B, D]; outputs y and h (the next layer's residual)";
    }
    return "y = x * rsqrt(mean(x^2, -1) + eps) * w of [D] rows with a shared weight w [D], "
           "batched as [B, D]; 16-bit inputs are normalised in float32 and cast back";
  }
  std::vector<ImplSpec> implementations() const override {
    const char* added = add_ ? " of h = at::add(x, residual)" : "";
    return {{kComposed,
             fmt::format("x * at::rsqrt(x.pow(2).mean(-1, keepdim) + eps) * w{}, all in float32 "
                         "(16-bit x and w upcast first, the product cast back): the Llama "
                         "formulation",
                         added),
             true, true},
            {kRmsNorm,
             fmt::format("at::rms_norm(x, {{D}}, w, eps){}: on CUDA the fused _fused_rms_norm "
                         "kernel, on the CPU ATen's composite (opmath upcast, the weight applied "
                         "after the cast back)",
                         added),
             true, true},
            {kSamebits,
             fmt::format("torch.ops.samebits.{}: one order per row length (kernels/norm/"
                         "invariant_norm_order.h), the CPU twin's bits on CUDA; float32, float16, "
                         "bfloat16",
                         add_ ? "add_rms_norm (y and h in one pass)" : "rms_norm"),
             true, true}};
  }
  std::vector<AxisSpec> axes() const override {
    return {{"D", AxisSpec::Type::integer, nullptr, {}, "row length (the normalised dim)"},
            {"eps", AxisSpec::Type::number, 1e-6, {}, "added to the mean square"},
            // The composition computes in float32 whatever x is, float8 too (not at::add).
            add_ ? dtype_axis("float32", {"float32", "float16", "bfloat16", "float64"})
                 : dtype_axis("float32", {"float32", "float16", "bfloat16", "float64",
                                          "float8_e4m3fn", "float8_e5m2"}),
            generator_axis("normal")};
  }
  std::vector<std::string> outputs() const override {
    if (add_) return {"y", "h"};
    return {"out"};
  }
  std::vector<CheckKind> checks() const override {
    return {CheckKind::determinism,         CheckKind::batch_invariance,
            CheckKind::position_invariance, CheckKind::layout_invariance,
            CheckKind::equivalence,         CheckKind::reference};
  }

  double call_elements(const Point& p, double items) const override {
    return (items * (add_ ? 3 : 1) + 1) * static_cast<double>(p.integer("D"));
  }
  std::string layout_axis() const override { return "D"; }
  std::optional<std::string> unsupported(const Point& p, const std::string& impl,
                                         const at::Device&) const override {
    if (impl == kRmsNorm && at::isFloat8Type(parse_dtype(p.text("dtype"))))
      return fmt::format("at::rms_norm has no {} kernel", p.text("dtype"));
    if (impl == kSamebits) {
      const std::string dtype = p.text("dtype");
      if (dtype != "float32" && dtype != "float16" && dtype != "bfloat16")
        return fmt::format("samebits.{} takes float32, float16 or bfloat16, not {}",
                           add_ ? "add_rms_norm" : "rms_norm", dtype);
    }
    return std::nullopt;
  }
  std::optional<std::string> impossible(const Point& p) const override {
    if (p.integer("D") < 1) return "D must be positive";
    if (p.real("eps") < 0) return fmt::format("eps must not be negative, got {}", p.real("eps"));
    return std::nullopt;
  }

  // w in [0.5, 1.5]: a trained norm weight's range, never zero.
  Shared make_shared(const Point& p, const at::Device& device, at::Generator& gen) const override {
    const at::Tensor w = generate("uniform", {p.integer("D")}, at::kFloat, device, gen);
    return {{w.mul_(0.5).add_(1.0).to(parse_dtype(p.text("dtype")))}};
  }

  // x, and for add_rmsnorm its residual row, drawn the same way.
  Item make_item(const Point& p, const Shared&, const ItemSpec&, const at::Device& device,
                 at::Generator& gen) const override {
    const std::int64_t d = p.integer("D");
    Item item{{draw(p, {d}, device, gen)}, d};
    if (add_) item.inputs.push_back(draw(p, {d}, device, gen));
    return item;
  }

  std::vector<Outputs> run(const Point& p, const Shared& shared,
                           const BatchRequest& r) const override {
    const at::Tensor x = place(stacked(r, 0), r.layout, 1);
    const at::Tensor& w = shared.tensors.at(0);
    const double eps = p.real("eps");
    std::vector<Outputs> out;
    if (!add_) {
      const at::Tensor y = normalise(r.impl, x, w, eps);
      for (std::int64_t b = 0; b < y.size(0); ++b) out.push_back({{"out", y[b]}});
      return out;
    }
    // The residual rows laid out as x's, so a strided or offset layout moves both.
    const at::Tensor residual = place(stacked(r, 1), r.layout, 1);
    at::Tensor y, h;
    if (r.impl == kSamebits) {
      const ComputeScope under_test;
      std::tie(y, h) = invariant_add_rms_norm(x, residual, w, eps);
    } else {
      {
        const ComputeScope under_test;
        h = at::add(x, residual);
      }
      y = normalise(r.impl, h, w, eps);
    }
    for (std::int64_t b = 0; b < y.size(0); ++b) out.push_back({{"y", y[b]}, {"h", h[b]}});
    return out;
  }

  // y in float64; for add_rmsnorm, h = x + residual in float64 (exact for these dtypes' sums but
  // for far-apart exponents), and y of h rounded to x's dtype, as the op promises to normalise it.
  Outputs reference(const Point& p, const Shared& shared, const Item& item) const override {
    const at::Tensor x = item.inputs.at(0).cpu().unsqueeze(0);
    const at::Tensor w = shared.tensors.at(0).cpu();
    const double eps = p.real("eps");
    if (!add_) return {{"out", composed(x, w, eps, at::kDouble)[0]}};
    const at::Tensor h = x.to(at::kDouble) + item.inputs.at(1).cpu().unsqueeze(0).to(at::kDouble);
    const at::Tensor y = composed(h.to(x.scalar_type()), w, eps, at::kDouble);
    return {{"y", y[0]}, {"h", h[0]}};
  }

 private:
  // Input `which` (0: x, 1: the residual) of every item, stacked as [B, D] in request order.
  static at::Tensor stacked(const BatchRequest& r, std::size_t which) {
    std::vector<at::Tensor> rows;
    for (const Item* item : r.items) rows.push_back(item->inputs.at(which));
    return at::stack(rows);
  }

  // The RMSNorm of `x`'s rows by `impl`.
  static at::Tensor normalise(const std::string& impl, const at::Tensor& x, const at::Tensor& w,
                              double eps) {
    const ComputeScope under_test;
    if (impl == kRmsNorm) return at::rms_norm(x, {x.size(1)}, w, eps);
    if (impl == kSamebits) return invariant_rms_norm(x, w, eps);
    return composed(x, w, eps, at::kFloat);
  }

  // The normalisation in `compute` (float32, or float64 for the reference), cast back to x's dtype
  // unless computing the reference.
  static at::Tensor composed(const at::Tensor& x, const at::Tensor& w, double eps,
                             at::ScalarType compute) {
    const at::Tensor xc = x.to(compute);
    const at::Tensor y = xc * at::rsqrt(xc.pow(2).mean(-1, /*keepdim=*/true) + eps) * w.to(compute);
    return compute == at::kDouble ? y : y.to(x.scalar_type());
  }

  bool add_;
};

}  // namespace

std::unique_ptr<Op> make_rmsnorm_op() {
  return std::make_unique<RmsNormOp>(false);
}
std::unique_ptr<Op> make_add_rmsnorm_op() {
  return std::make_unique<RmsNormOp>(true);
}

}  // namespace samebits
