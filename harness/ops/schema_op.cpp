// A schema op: a stack built from the contract's inputs, called through the c10 dispatcher
// (callBoxed) or another callee; items are slices along each input's batch dim, concatenated into
// one call (laid out, padded or packed as a request says) and split back out of every output.
#include "harness/ops/schema_op.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "cases/generators.h"
#include "harness/ops/schema_binding.h"
#include "harness/ops/schema_callee.h"

namespace samebits {
namespace {

// One call's tensors: an item's batched inputs (or a chunk of them) and its length.
struct CallItem {
  std::vector<at::Tensor> inputs;
  std::int64_t length = 0;
};

// An ATen op by its schema name, called through the c10 dispatcher.
class DispatcherCallee final : public SchemaCallee {
 public:
  explicit DispatcherCallee(c10::OperatorHandle handle) : handle_(std::move(handle)) {}
  ImplSpec implementation() const override {
    return {"aten", "the op's registered kernel, called by schema (callBoxed)", true, true};
  }
  std::string how() const override { return "through the c10 dispatcher"; }
  void call(torch::jit::Stack& stack) const override { handle_.callBoxed(stack); }

 private:
  c10::OperatorHandle handle_;
};

// x padded along `dim` with `before` and `after` slots of `fill`.
at::Tensor pad_along(const at::Tensor& x, std::int64_t dim, std::int64_t before, std::int64_t after,
                     double fill) {
  if (before == 0 && after == 0) return x;
  std::vector<std::int64_t> pad(static_cast<std::size_t>(2 * (x.dim() - dim)), 0);
  pad[pad.size() - 2] = before;
  pad[pad.size() - 1] = after;
  return at::constant_pad_nd(x, pad, x.is_floating_point() ? fill : 0.0);
}

class SchemaOp final : public Op {
 public:
  explicit SchemaOp(const Contract& c) : name_(c.op) {
    bind_schema(c, bound_);
    callee_ = std::make_shared<DispatcherCallee>(*bound_.handle);
  }
  SchemaOp(const Contract& c, const c10::FunctionSchema& schema,
           std::shared_ptr<const SchemaCallee> callee)
      : name_(c.op), callee_(std::move(callee)) {
    bind_schema(c, schema, bound_);
  }

  std::string name() const override { return name_; }
  std::string description() const override {
    return fmt::format("{} {}, items along each input's batch dim", bound_.schema_text,
                       callee_->how());
  }
  std::vector<ImplSpec> implementations() const override { return {callee_->implementation()}; }
  bool serial(const std::string&) const override { return callee_->serial(); }
  std::vector<AxisSpec> axes() const override { return bound_.axes; }
  std::vector<std::string> outputs() const override {
    std::vector<std::string> names;
    for (const auto& o : bound_.outputs) names.push_back(o.name);
    return names;
  }
  std::vector<CheckKind> checks() const override {
    std::vector<CheckKind> kinds = {CheckKind::determinism, CheckKind::batch_invariance,
                                    CheckKind::position_invariance, CheckKind::layout_invariance,
                                    CheckKind::reference};
    if (sequenced()) {
      kinds.push_back(CheckKind::padding_invariance);
      kinds.push_back(CheckKind::chunking_invariance);
    }
    return kinds;
  }
  std::vector<LayoutKind> layouts() const override {
    return {LayoutKind::strided, LayoutKind::offset};
  }
  std::vector<PaddingMode> paddings() const override {
    if (!sequenced()) return {};
    return {PaddingMode::right, PaddingMode::left, PaddingMode::packed};
  }
  std::string length_axis() const override { return bound_.spec.sequence; }

  std::optional<std::string> impossible(const Point& p) const override {
    for (const auto& a : bound_.args) {
      if (a.source != BoundArg::Source::tensor) continue;
      const auto shape = shape_at(*a.tensor, p);
      if (std::any_of(shape.begin(), shape.end(), [](std::int64_t e) { return e < 0; }))
        return fmt::format("input \"{}\" would have a negative extent", a.argument.name());
      if (a.tensor->values.integers() &&
          evaluate_at(*a.tensor->values.low, p) >= evaluate_at(*a.tensor->values.high, p))
        return fmt::format("input \"{}\": integers in [low, high) need low < high",
                           a.argument.name());
    }
    return std::nullopt;
  }
  double call_elements(const Point& p, double items) const override {
    double total = 0;
    for (const auto& a : bound_.args) {
      if (a.source != BoundArg::Source::tensor) continue;
      double n = 1;
      for (auto e : shape_at(*a.tensor, p)) n *= static_cast<double>(e);
      total += a.tensor->batch_dim ? n * items : n;
    }
    return total;
  }

  Shared make_shared(const Point& p, const at::Device& device, at::Generator& gen) const override {
    Shared shared;
    for (const auto& a : bound_.args) {
      if (a.source == BoundArg::Source::tensor && !a.tensor->batch_dim)
        shared.tensors.push_back(draw_tensor(*a.tensor, p, device, gen));
    }
    return shared;
  }
  Item make_item(const Point& point, const Shared&, const ItemSpec& spec, const at::Device& device,
                 at::Generator& gen) const override {
    Point p = point;
    if (sequenced() && spec.length > 0) p.set(bound_.spec.sequence, spec.length);
    Item item;
    item.length = sequenced() ? p.integer(bound_.spec.sequence) : 0;
    for (const auto& a : bound_.args) {
      if (a.source == BoundArg::Source::tensor && a.tensor->batch_dim)
        item.inputs.push_back(draw_tensor(*a.tensor, p, device, gen));
    }
    return item;
  }

  std::vector<Outputs> run(const Point& p, const Shared& shared,
                           const BatchRequest& r) const override {
    std::vector<CallItem> items;
    for (const Item* item : r.items) items.push_back({item->inputs, item->length});
    if (r.chunk > 0) return run_chunked(p, shared, items, r.chunk);
    return call(p, shared.tensors, items, r.layout, r.padding, r.canary_padding);
  }

  Outputs reference(const Point& p, const Shared& shared, const Item& item) const override {
    const auto widen = [](std::vector<at::Tensor> tensors) {
      for (auto& t : tensors) {
        t = t.cpu();
        if (t.is_floating_point()) t = t.to(at::kDouble);
      }
      return tensors;
    };
    const std::vector<at::Tensor> inputs = widen(item.inputs);
    const std::vector<at::Tensor> common = widen(shared.tensors);
    const auto floating = [](const at::Tensor& t) { return t.is_floating_point(); };
    if (std::none_of(inputs.begin(), inputs.end(), floating) &&
        std::none_of(common.begin(), common.end(), floating))
      throw Unsupported(name_ + ": no floating input to compute in float64");
    return call(p, common, {{inputs, item.length}}, Layout{}, std::nullopt, false).at(0);
  }

 private:
  bool sequenced() const { return !bound_.spec.sequence.empty(); }

  std::vector<std::int64_t> shape_at(const TensorInput& t, const Point& p) const {
    std::vector<std::int64_t> shape;
    for (const auto& e : t.shape) shape.push_back(evaluate_at(e, p));
    return shape;
  }

  at::Tensor draw_tensor(const TensorInput& t, const Point& p, const at::Device& device,
                         at::Generator& gen) const {
    const auto shape = shape_at(t, p);
    const c10::ScalarType dtype = dtype_at(t, p);
    if (t.values.integers()) {
      return at::randint(evaluate_at(*t.values.low, p), evaluate_at(*t.values.high, p), shape, gen,
                         at::TensorOptions().dtype(dtype).device(device));
    }
    return generate(generator_at(t, p), shape, dtype, device, gen);
  }

  // The parts input `slot` (a TensorInput with a batch dim) of `items` is batched from, padded
  // along its sequence dim where the request pads.
  std::vector<at::Tensor> input_parts(const TensorInput& t, std::size_t slot,
                                      const std::vector<CallItem>& items,
                                      const std::optional<PaddingMode>& padding,
                                      bool canary) const {
    std::vector<at::Tensor> parts;
    for (const auto& item : items) parts.push_back(item.inputs.at(slot));
    if (padding == PaddingMode::packed && !t.sequence_dim)
      throw Unsupported("packed batches need every batched input to have the sequence dim");
    if (padding && *padding != PaddingMode::packed && t.sequence_dim) {
      std::int64_t longest = 0;
      for (const auto& item : items) longest = std::max(longest, item.length);
      const double fill = canary ? canary_value().toDouble() : 0.0;
      for (std::size_t b = 0; b < parts.size(); ++b) {
        const std::int64_t gap = longest - items[b].length;
        parts[b] = *padding == PaddingMode::left
                       ? pad_along(parts[b], *t.sequence_dim, gap, 0, fill)
                       : pad_along(parts[b], *t.sequence_dim, 0, gap, fill);
      }
    }
    return parts;
  }

  // Every batched input of one call: its parts shifted where they index another input (by where
  // each item starts along that input's batch dim), then joined along the batch dim (packed:
  // the sequence dim).
  std::vector<at::Tensor> batch_inputs(const std::vector<CallItem>& items,
                                       const std::optional<PaddingMode>& padding,
                                       bool canary) const {
    std::vector<std::vector<at::Tensor>> parts(items.empty() ? 0 : items[0].inputs.size());
    std::vector<const TensorInput*> specs(parts.size());
    for (const auto& a : bound_.args) {
      if (a.source != BoundArg::Source::tensor || !a.tensor->batch_dim) continue;
      parts[a.slot] = input_parts(*a.tensor, a.slot, items, padding, canary);
      specs[a.slot] = a.tensor;
    }
    for (const auto& a : bound_.args) {
      if (!a.indexes_slot) continue;
      const TensorInput& target = *specs[*a.indexes_slot];
      const std::int64_t dim =
          padding == PaddingMode::packed ? *target.sequence_dim : *target.batch_dim;
      std::int64_t start = 0;
      for (std::size_t b = 0; b < items.size(); ++b) {
        parts[a.slot][b] = parts[a.slot][b] + start;
        start += parts[*a.indexes_slot][b].size(dim);
      }
    }
    std::vector<at::Tensor> out;
    for (std::size_t slot = 0; slot < parts.size(); ++slot) {
      const TensorInput& t = *specs[slot];
      out.push_back(
          at::cat(parts[slot], padding == PaddingMode::packed ? *t.sequence_dim : *t.batch_dim));
    }
    return out;
  }

  // One call of the op over `items`; outputs split back per item.
  std::vector<Outputs> call(const Point& p, const std::vector<at::Tensor>& shared,
                            const std::vector<CallItem>& items, const Layout& layout,
                            const std::optional<PaddingMode>& padding, bool canary) const {
    if (padding == PaddingMode::paged) throw Unsupported("schema ops take no paged batches");
    std::vector<at::Tensor> batched = batch_inputs(items, padding, canary);
    torch::jit::Stack stack;
    for (const auto& a : bound_.args) {
      if (a.source != BoundArg::Source::tensor) {
        stack.push_back(value_at(a, p));
        continue;
      }
      if (!a.tensor->batch_dim) {
        stack.push_back(shared.at(a.slot));
        continue;
      }
      at::Tensor x = std::move(batched.at(a.slot));
      // Floating inputs only: the gaps hold NaN canaries, which integers cannot.
      if (layout.kind != LayoutKind::contiguous && x.dim() > 0 && x.is_floating_point())
        x = place(x, layout, -1);
      stack.push_back(std::move(x));
    }
    {
      const ComputeScope under_test;
      callee_->call(stack);
    }
    std::vector<Outputs> out(items.size());
    for (const auto& o : bound_.outputs) {
      if (o.index >= stack.size() || !stack[o.index].isTensor()) {
        throw std::invalid_argument(
            fmt::format("{}: return {} (output \"{}\") is not a tensor", name_, o.index, o.name));
      }
      const at::Tensor all = stack[o.index].toTensor();
      const auto pieces = split(all, o, items, padding);
      for (std::size_t b = 0; b < items.size(); ++b) out[b].push_back({o.name, pieces[b]});
    }
    return out;
  }

  std::vector<at::Tensor> split(const at::Tensor& all, const BoundOutput& o,
                                const std::vector<CallItem>& items,
                                const std::optional<PaddingMode>& padding) const {
    const auto n = static_cast<std::int64_t>(items.size());
    const auto need = [&](std::int64_t dim, const char* what) {
      if (dim >= all.dim()) {
        throw std::invalid_argument(
            fmt::format("{}: output \"{}\" has {} dims, so no {} dim {} (give it in \"outputs\")",
                        name_, o.name, all.dim(), what, dim));
      }
    };
    std::vector<at::Tensor> pieces;
    if (padding == PaddingMode::packed) {
      if (!o.sequence_dim) throw Unsupported("output " + o.name + " has no sequence dim");
      need(*o.sequence_dim, "sequence");
      std::int64_t start = 0;
      for (const auto& item : items) {
        pieces.push_back(all.narrow(*o.sequence_dim, start, item.length));
        start += item.length;
      }
      return pieces;
    }
    need(o.batch_dim, "batch");
    const std::int64_t extent = all.size(o.batch_dim);
    if (extent % n != 0) {
      throw std::invalid_argument(fmt::format(
          "{}: output \"{}\" has {} along its batch dim {}, not a multiple of the {} items", name_,
          o.name, extent, o.batch_dim, n));
    }
    std::int64_t longest = 0;
    for (const auto& item : items) longest = std::max(longest, item.length);
    for (std::int64_t b = 0; b < n; ++b) {
      at::Tensor piece = all.narrow(o.batch_dim, b * (extent / n), extent / n);
      if (padding && o.sequence_dim) {
        need(*o.sequence_dim, "sequence");
        const std::int64_t length = items[static_cast<std::size_t>(b)].length;
        piece = piece.narrow(*o.sequence_dim, *padding == PaddingMode::left ? longest - length : 0,
                             length);
      }
      pieces.push_back(piece);
    }
    return pieces;
  }

  // The items cut into chunks of `chunk` along the sequence dim, one call per chunk (items whose
  // chunks differ in length in separate calls), each item's outputs joined along theirs.
  std::vector<Outputs> run_chunked(const Point& p, const Shared& shared,
                                   const std::vector<CallItem>& items, std::int64_t chunk) const {
    std::vector<std::vector<Outputs>> pieces(items.size());
    std::int64_t longest = 0;
    for (const auto& item : items) longest = std::max(longest, item.length);
    for (std::int64_t start = 0; start < longest; start += chunk) {
      std::map<std::int64_t, std::vector<std::size_t>> by_length;
      for (std::size_t b = 0; b < items.size(); ++b) {
        if (items[b].length > start)
          by_length[std::min(chunk, items[b].length - start)].push_back(b);
      }
      for (const auto& [length, members] : by_length) {
        std::vector<CallItem> cut;
        for (auto b : members) {
          CallItem c{{}, length};
          std::size_t slot = 0;
          for (const auto& a : bound_.args) {
            if (a.source != BoundArg::Source::tensor || !a.tensor->batch_dim) continue;
            const at::Tensor& x = items[b].inputs.at(slot++);
            c.inputs.push_back(
                a.tensor->sequence_dim ? x.narrow(*a.tensor->sequence_dim, start, length) : x);
          }
          cut.push_back(std::move(c));
        }
        const auto outs = call(p, shared.tensors, cut, Layout{}, std::nullopt, false);
        for (std::size_t i = 0; i < members.size(); ++i) pieces[members[i]].push_back(outs[i]);
      }
    }
    std::vector<Outputs> out(items.size());
    for (std::size_t b = 0; b < items.size(); ++b) {
      for (std::size_t k = 0; k < bound_.outputs.size(); ++k) {
        const BoundOutput& o = bound_.outputs[k];
        if (!o.sequence_dim) throw Unsupported("output " + o.name + " has no sequence dim");
        std::vector<at::Tensor> parts;
        for (const auto& outs : pieces[b]) parts.push_back(outs.at(k).value);
        out[b].push_back({o.name, at::cat(parts, *o.sequence_dim)});
      }
    }
    return out;
  }

  std::string name_;
  BoundSchema bound_;
  std::shared_ptr<const SchemaCallee> callee_;
};

}  // namespace

std::unique_ptr<Op> make_schema_op(const Contract& contract) {
  return std::make_unique<SchemaOp>(contract);
}

std::unique_ptr<Op> make_schema_op(const Contract& contract, const c10::FunctionSchema& schema,
                                   std::shared_ptr<const SchemaCallee> callee) {
  return std::make_unique<SchemaOp>(contract, schema, std::move(callee));
}

}  // namespace samebits
