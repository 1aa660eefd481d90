// RMSNorm of [D] rows with a shared weight, batched as [B, D]: composed from ATen ops (a mean over
// the last dim, whose CUDA reduce config follows B), as at::rms_norm, and as samebits.rms_norm.
#include <fmt/format.h>

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
  std::string name() const override { return "rmsnorm"; }
  std::string description() const override {
    return "y = x * rsqrt(mean(x^2, -1) + eps) * w of [D] rows with a shared weight w [D], "
           "batched as [B, D]; 16-bit inputs are normalised in float32 and cast back";
  }
  std::vector<ImplSpec> implementations() const override {
    return {{kComposed,
             "x * at::rsqrt(x.pow(2).mean(-1, keepdim) + eps) * w, all in float32 (16-bit x and w "
             "upcast first, the product cast back): the Llama formulation",
             true, true},
            {kRmsNorm,
             "at::rms_norm(x, {D}, w, eps): on CUDA the fused _fused_rms_norm kernel, on the CPU "
             "ATen's composite (opmath upcast, the weight applied after the cast back)",
             true, true},
            {kSamebits,
             "torch.ops.samebits.rms_norm: one order per row length (kernels/norm/"
             "invariant_norm_order.h), the CPU twin's bits on CUDA; float32, float16, bfloat16",
             true, true}};
  }
  std::vector<AxisSpec> axes() const override {
    return {{"D", AxisSpec::Type::integer, nullptr, {}, "row length (the normalised dim)"},
            {"eps", AxisSpec::Type::number, 1e-6, {}, "added to the mean square"},
            // The composition computes in float32 whatever x is, float8 too.
            dtype_axis("float32", {"float32", "float16", "bfloat16", "float64", "float8_e4m3fn",
                                   "float8_e5m2"}),
            generator_axis("normal")};
  }
  std::vector<std::string> outputs() const override { return {"out"}; }
  std::vector<CheckKind> checks() const override {
    return {CheckKind::determinism,         CheckKind::batch_invariance,
            CheckKind::position_invariance, CheckKind::layout_invariance,
            CheckKind::equivalence,         CheckKind::reference};
  }

  double call_elements(const Point& p, double items) const override {
    return (items + 1) * static_cast<double>(p.integer("D"));
  }
  std::string layout_axis() const override { return "D"; }
  std::optional<std::string> unsupported(const Point& p, const std::string& impl,
                                         const at::Device&) const override {
    if (impl == kRmsNorm && at::isFloat8Type(parse_dtype(p.text("dtype"))))
      return fmt::format("at::rms_norm has no {} kernel", p.text("dtype"));
    if (impl == kSamebits) {
      const std::string dtype = p.text("dtype");
      if (dtype != "float32" && dtype != "float16" && dtype != "bfloat16")
        return fmt::format("samebits.rms_norm takes float32, float16 or bfloat16, not {}", dtype);
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

  Item make_item(const Point& p, const Shared&, const ItemSpec&, const at::Device& device,
                 at::Generator& gen) const override {
    const std::int64_t d = p.integer("D");
    return {{draw(p, {d}, device, gen)}, d};
  }

  std::vector<Outputs> run(const Point& p, const Shared& shared,
                           const BatchRequest& r) const override {
    std::vector<at::Tensor> rows;
    for (const Item* item : r.items) rows.push_back(item->inputs.at(0));
    const at::Tensor x = place(at::stack(rows), r.layout, 1);
    const at::Tensor& w = shared.tensors.at(0);
    const double eps = p.real("eps");
    const ComputeScope under_test;
    const at::Tensor all = r.impl == kRmsNorm    ? at::rms_norm(x, {x.size(1)}, w, eps)
                           : r.impl == kSamebits ? invariant_rms_norm(x, w, eps)
                                                 : composed(x, w, eps, at::kFloat);
    std::vector<Outputs> out;
    for (std::int64_t b = 0; b < all.size(0); ++b) out.push_back({{"out", all[b]}});
    return out;
  }

  Outputs reference(const Point& p, const Shared& shared, const Item& item) const override {
    const at::Tensor x = item.inputs.at(0).cpu().unsqueeze(0);
    return {{"out", composed(x, shared.tensors.at(0).cpu(), p.real("eps"), at::kDouble)[0]}};
  }

 private:
  // The normalisation in `compute` (float32, or float64 for the reference), cast back to x's dtype
  // unless computing the reference.
  static at::Tensor composed(const at::Tensor& x, const at::Tensor& w, double eps,
                             at::ScalarType compute) {
    const at::Tensor xc = x.to(compute);
    const at::Tensor y = xc * at::rsqrt(xc.pow(2).mean(-1, /*keepdim=*/true) + eps) * w.to(compute);
    return compute == at::kDouble ? y : y.to(x.scalar_type());
  }
};

}  // namespace

std::unique_ptr<Op> make_rmsnorm_op() {
  return std::make_unique<RmsNormOp>();
}

}  // namespace samebits
