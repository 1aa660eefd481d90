// The matmul and linear ops (ATen and torch.ops.samebits) of one activation row against a shared
// weight, batched as an [M, K] matrix: a GEMM library picks kernel, tiling and split-K from M, so
// one row may not stay put; samebits' order is one per (N, K, dtype).
#include <fmt/format.h>

#include <cmath>

#include "cases/draw.h"
#include "cases/dtypes.h"
#include "cases/generators.h"
#include "harness/ops/op_support.h"
#include "harness/ops/ops.h"
#include "kernels/linear/binding.h"

namespace samebits {
namespace {

class GemmOp final : public Op {
 public:
  // linear: x @ W^T + bias with W [N, K]; otherwise A @ W with W [K, N].
  explicit GemmOp(bool linear) : linear_(linear) {}

  std::string name() const override { return linear_ ? "linear" : "matmul"; }
  std::string description() const override {
    return linear_ ? "at::linear(x, W [N, K], bias [N] unless bias=false) of [K] rows, batched as "
                     "x [M, K]"
                   : "at::matmul(A, W [K, N]) of [K] rows of A, batched as A [M, K]";
  }
  std::vector<ImplSpec> implementations() const override {
    const ImplSpec samebits{
        "samebits",
        fmt::format("torch.ops.samebits.{}: one order per (N, K, dtype) for every M, stride and "
                    "alignment (kernels/linear): float32 one fma chain over k, bf16 / f16 "
                    "tensor-core steps of 16 in ascending k, no split-K",
                    name()),
        true, true};
    if (!linear_)
      return {{"aten.matmul", "at::matmul(A, W): a 2-D mm, beta = 0", true, true}, samebits};
    return {{"aten.linear",
             "at::linear(x, W, bias): with a bias an addmm, which CUDA runs as a cuBLASLt "
             "epilogue for M >= 2 and through cublasGemmEx for M = 1; without one a plain mm",
             true, true},
            samebits};
  }
  std::vector<AxisSpec> axes() const override {
    std::vector<AxisSpec> axes = {
        {"K", AxisSpec::Type::integer, nullptr, {}, "row length: the dot products' length"},
        {"N", AxisSpec::Type::integer, nullptr, {}, "output features (columns of the result)"},
        dtype_axis("float32", {"float32", "bfloat16", "float16"}),  // the GEMM dtypes here
        generator_axis("normal")};
    if (linear_) axes.push_back({"bias", AxisSpec::Type::flag, true, {}, "add a bias [N]"});
    return axes;
  }
  std::vector<std::string> outputs() const override { return {"out"}; }
  std::vector<CheckKind> checks() const override {
    return {CheckKind::determinism, CheckKind::batch_invariance, CheckKind::position_invariance,
            CheckKind::layout_invariance, CheckKind::reference};
  }
  // padded:<m> zero-pads K (in the rows and in W) to a multiple of m, as kernels that want
  // aligned K do: the same dot products with trailing zero terms.
  std::vector<LayoutKind> layouts() const override {
    return {LayoutKind::strided, LayoutKind::offset, LayoutKind::padded};
  }

  double call_elements(const Point& p, double items) const override {
    return (items + static_cast<double>(p.integer("N"))) * static_cast<double>(p.integer("K")) +
           items * static_cast<double>(p.integer("N"));
  }
  std::string layout_axis() const override { return "K"; }  // rows of A (and W when padded)
  std::optional<std::string> impossible(const Point& p) const override {
    if (p.integer("K") < 1 || p.integer("N") < 1) return "K and N must be positive";
    return std::nullopt;
  }

  // W [K, N] for matmul, W [N, K] and bias [N] for linear; scaled by 1 / sqrt(K) (a power of two
  // when K is a power of four) so outputs stay O(1) whatever K.
  Shared make_shared(const Point& p, const at::Device& device, at::Generator& gen) const override {
    const std::int64_t k = p.integer("K"), n = p.integer("N");
    const auto dtype = parse_dtype(p.text("dtype"));
    const double scale = 1.0 / std::sqrt(static_cast<double>(k));
    const std::vector<std::int64_t> shape =
        linear_ ? std::vector<std::int64_t>{n, k} : std::vector<std::int64_t>{k, n};
    Shared shared;
    shared.tensors.push_back(
        generate(p.text("generator"), shape, at::kFloat, device, gen).mul_(scale).to(dtype));
    if (linear_) shared.tensors.push_back(generate(p.text("generator"), {n}, dtype, device, gen));
    return shared;
  }

  Item make_item(const Point& p, const Shared&, const ItemSpec&, const at::Device& device,
                 at::Generator& gen) const override {
    const std::int64_t k = p.integer("K");
    return {{draw(p, {k}, device, gen)}, k};
  }

  std::vector<Outputs> run(const Point& p, const Shared& shared,
                           const BatchRequest& r) const override {
    std::vector<at::Tensor> rows;
    for (const Item* item : r.items) rows.push_back(item->inputs.at(0));
    at::Tensor a = at::stack(rows);
    at::Tensor w = shared.tensors.at(0);
    if (r.layout.kind == LayoutKind::padded) {
      a = pad_to_multiple(a, r.layout.amount, 1, 0.0);
      w = pad_to_multiple(w, r.layout.amount, linear_ ? 1 : 0, 0.0);
    } else {
      a = place(a, r.layout, 1);
    }
    const at::Tensor all = multiply(r.impl, p, a, w, shared);
    std::vector<Outputs> out;
    for (std::int64_t b = 0; b < all.size(0); ++b) out.push_back({{"out", all[b]}});
    return out;
  }

  Outputs reference(const Point& p, const Shared& shared, const Item& item) const override {
    std::vector<at::Tensor> wide;
    for (const auto& t : shared.tensors) wide.push_back(t.cpu().to(at::kDouble));
    const at::Tensor a = item.inputs.at(0).cpu().to(at::kDouble).unsqueeze(0);
    return {{"out", multiply("aten", p, a, wide.at(0), Shared{wide})[0]}};
  }

 private:
  at::Tensor multiply(const std::string& impl, const Point& p, const at::Tensor& a,
                      const at::Tensor& w, const Shared& shared) const {
    const ComputeScope under_test;
    const bool bias = linear_ && p.flag_or("bias", true);
    if (impl == "samebits") {
      if (!linear_) return invariant_matmul(a, w);
      return bias ? invariant_linear(a, w, shared.tensors.at(1)) : invariant_linear(a, w);
    }
    if (!linear_) return at::matmul(a, w);
    if (!bias) return at::linear(a, w);
    return at::linear(a, w, shared.tensors.at(1));
  }

  bool linear_;
};

}  // namespace

std::unique_ptr<Op> make_matmul_op() {
  return std::make_unique<GemmOp>(false);
}
std::unique_ptr<Op> make_linear_op() {
  return std::make_unique<GemmOp>(true);
}

}  // namespace samebits
