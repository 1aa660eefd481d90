// The gradients of each item's inputs under one call of the op, for fixed upstream gradients: what
// the gradient kinds compare in place of the op's outputs, so the diff and the report apply as is.
#include "harness/checks/item_gradients.h"

#include <c10/core/GradMode.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/csrc/autograd/autograd.h>

#include <algorithm>
#include <stdexcept>

#include "cases/dtypes.h"
#include "cases/generators.h"
#include "cases/seeds.h"

namespace samebits {
namespace {

// Item k's upstream gradients come from stream 2^32 + k of the case seed: apart from the items'
// own streams (their index) and the shared tensors' (cases/seeds.h).
constexpr std::uint64_t kUpstreamStreams = std::uint64_t{1} << 32;

// A floating tensor as a fresh leaf of the same storage and strides; any other as it is.
at::Tensor leaf(const at::Tensor& t) {
  return t.is_floating_point() ? t.detach().requires_grad_(true) : t;
}

bool takes_upstream(const Comparison& how, const Output& out) {
  return out.value.is_floating_point() &&
         (how.outputs.empty() ||
          std::find(how.outputs.begin(), how.outputs.end(), out.name) != how.outputs.end());
}

bool any_floating(const std::vector<at::Tensor>& tensors) {
  return std::any_of(tensors.begin(), tensors.end(),
                     [](const at::Tensor& t) { return t.is_floating_point(); });
}

// The roots of the backward and their upstream gradients: each output that takes one, its
// gradient drawn in output order from the item's own stream whether or not it requires grad, so
// every output's draw is the same in every call.
struct Roots {
  std::vector<at::Tensor> outputs;
  std::vector<at::Tensor> upstream;
  bool floating = false;  // some output takes an upstream gradient
};

Roots roots_of(const CaseContext& c, const std::vector<Outputs>& outs,
               const std::vector<std::int64_t>& indices) {
  Roots roots;
  for (std::size_t k = 0; k < outs.size(); ++k) {
    at::Generator gen = make_generator(
        c.device(),
        item_seed(c.spec().seed, kUpstreamStreams + static_cast<std::uint64_t>(indices[k])));
    for (const auto& o : outs[k]) {
      if (!takes_upstream(c.spec().check->compare, o)) continue;
      roots.floating = true;
      const at::Tensor g =
          generate("normal", o.value.sizes(), o.value.scalar_type(), c.device(), gen);
      if (!o.value.requires_grad()) continue;
      roots.outputs.push_back(o.value);
      roots.upstream.push_back(g.to(o.value.device()));
    }
  }
  return roots;
}

}  // namespace

std::vector<Outputs> item_gradients(CaseContext& c, const BatchRequest& request,
                                    const std::vector<std::int64_t>& indices, Side side) {
  if (indices.size() != request.items.size())
    throw std::logic_error("item_gradients: one index per item of the request");
  const c10::AutoGradMode grad_mode(true);
  std::vector<Item> items;
  items.reserve(request.items.size());
  for (const Item* item : request.items) {
    Item copy{{}, item->length};
    for (const auto& t : item->inputs) copy.inputs.push_back(leaf(t));
    items.push_back(std::move(copy));
  }
  if (std::none_of(items.begin(), items.end(),
                   [](const Item& i) { return any_floating(i.inputs); }))
    throw Unsupported(
        fmt::format("op {}'s items have no floating input to differentiate", c.spec().op->name()));
  Shared shared;
  for (const auto& t : c.shared().tensors) shared.tensors.push_back(leaf(t));
  BatchRequest call = request;
  call.items.clear();
  for (const auto& item : items) call.items.push_back(&item);

  const Roots roots = roots_of(c, c.run(call, side, shared), indices);
  if (!roots.floating) {
    throw Unsupported(fmt::format(
        "op {} ({}) returns no floating output to differentiate{}", c.spec().op->name(),
        request.impl, c.spec().check->compare.outputs.empty() ? "" : " among those compared"));
  }
  if (roots.outputs.empty())
    throw Unsupported(fmt::format("implementation {} has no backward", request.impl));

  std::vector<at::Tensor> leaves;
  for (const auto& item : items) {
    for (const auto& t : item.inputs) {
      if (t.requires_grad()) leaves.push_back(t);
    }
  }
  for (const auto& t : shared.tensors) {
    if (t.requires_grad()) leaves.push_back(t);
  }
  std::vector<at::Tensor> grads;
  try {
    grads = torch::autograd::grad(roots.outputs, leaves, roots.upstream, /*retain_graph=*/false,
                                  /*create_graph=*/false, /*allow_unused=*/true);
  } catch (const c10::NotImplementedError& e) {
    throw Unsupported(fmt::format("implementation {} has no backward: {}", request.impl,
                                  e.what_without_backtrace()));
  }
  // Per item, its inputs' gradients in input order; an input the outputs do not reach has zeros.
  std::vector<Outputs> out(items.size());
  std::size_t next = 0;
  bool reached = false;
  for (std::size_t k = 0; k < items.size(); ++k) {
    const auto& inputs = items[k].inputs;
    for (std::size_t n = 0; n < inputs.size(); ++n) {
      if (!inputs[n].requires_grad()) continue;
      at::Tensor g = grads.at(next++);
      reached = reached || g.defined();
      out[k].push_back({fmt::format("grad:{}", n), g.defined() ? g : at::zeros_like(inputs[n])});
    }
  }
  if (!reached) {
    throw Unsupported(fmt::format(
        "implementation {} has no backward: no gradient reaches the items' inputs", request.impl));
  }
  return out;
}

std::vector<std::int64_t> first_indices(std::size_t n) {
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(static_cast<std::int64_t>(i));
  return out;
}

std::optional<std::string> no_floating_input(const Op& op, const Point& point, CheckKind kind) {
  const at::Device cpu(at::kCPU);
  std::vector<std::string> held;
  try {
    at::Generator shared_gen = make_generator(cpu, item_seed(0, kSharedStream));
    const Shared shared = op.make_shared(point, cpu, shared_gen);
    at::Generator gen = make_generator(cpu, item_seed(0, 0));
    const Item item = op.make_item(point, shared, ItemSpec{}, cpu, gen);
    if (any_floating(item.inputs)) return std::nullopt;
    for (const auto& t : item.inputs) held.push_back(dtype_name(t.scalar_type()));
  } catch (const std::exception&) {
    return std::nullopt;  // the op cannot make this item on the CPU: its cases will tell
  }
  std::vector<std::string> kinds;
  for (auto k : op.checks()) kinds.push_back(to_string(k));
  return fmt::format(
      "op {}'s items have no floating-point input (they hold {}), so {} has nothing to "
      "differentiate: it takes ops whose items have one; op {} takes {}",
      op.name(), held.empty() ? "no tensor" : fmt::format("{}", fmt::join(held, ", ")),
      to_string(kind), op.name(), fmt::join(kinds, ", "));
}

}  // namespace samebits
