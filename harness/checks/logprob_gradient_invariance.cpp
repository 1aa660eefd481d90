// logprob_gradient_invariance: the gradient of the sum of a generated sequence's log-probabilities
// (a trainer's forward) w.r.t. its input embeddings, alone vs inside a batch of other sequences.
#include <c10/core/GradMode.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/csrc/autograd/autograd.h>

#include "harness/checks/batch_axes.h"
#include "harness/checks/check.h"
#include "harness/checks/scored_rollout.h"

namespace samebits {
namespace {

// Per item of `request`, the gradient of sum(logprobs) over the call (each item's sum: the items
// do not meet) w.r.t. the item's input embeddings, as "grad:embeddings".
std::vector<Outputs> logprob_sum_gradients(CaseContext& c, const BatchRequest& request,
                                           const std::vector<at::Tensor>& continuations,
                                           Side side) {
  const c10::AutoGradMode grad_mode(true);
  ScoreRequest score{request, continuations, /*differentiable=*/true};
  const auto scored = c.score(score, side);
  std::vector<at::Tensor> sums, leaves;
  for (const auto& outs : scored) {
    for (const auto& o : outs) {
      if (o.name == "logprobs") sums.push_back(o.value.sum());
      if (o.name == "embeddings") leaves.push_back(o.value);
    }
  }
  if (sums.size() != scored.size() || leaves.size() != scored.size())
    throw std::logic_error("a differentiable score returns logprobs and embeddings per item");
  const at::Tensor total = at::stack(sums).sum();
  if (!total.requires_grad())
    throw Unsupported(fmt::format("implementation {} has no backward", request.impl));
  std::vector<at::Tensor> grads;
  try {
    grads = torch::autograd::grad({total}, leaves, {}, /*retain_graph=*/false,
                                  /*create_graph=*/false, /*allow_unused=*/true);
  } catch (const c10::NotImplementedError& e) {
    throw Unsupported(fmt::format("implementation {} has no backward: {}", request.impl,
                                  e.what_without_backtrace()));
  }
  std::vector<Outputs> out;
  for (std::size_t k = 0; k < grads.size(); ++k) {
    const at::Tensor g = grads[k].defined() ? grads[k] : at::zeros_like(leaves[k]);
    out.push_back({{"grad:embeddings", g}});
  }
  return out;
}

// The sequences are fixed first: the batch is served once (the rollout) and every item keeps the
// tokens it got there; then only the training forward and its backward differ between the sides.
class LogprobGradientInvariance final : public Check {
 public:
  CheckKind kind() const override { return CheckKind::logprob_gradient_invariance; }
  std::string compares() const override {
    return "the gradient of the sum of the item's generated tokens' log-probabilities (one "
           "training forward over prompt and tokens) w.r.t. its input embeddings, alone vs at "
           "`position` of a batch of `batch`";
  }
  std::vector<AxisSpec> axes() const override { return {batch_axis(4), position_axis()}; }
  bool differentiates() const override { return true; }
  std::optional<std::string> refuses(const Op& op, const Point&) const override {
    if (op.scores()) return std::nullopt;
    std::vector<std::string> kinds;
    for (auto k : op.checks()) kinds.push_back(to_string(k));
    return fmt::format(
        "op {} generates no tokens and scores none (Op::scores), so {} has no log-probabilities "
        "to differentiate: it takes ops that generate sequences (decoder); op {} takes {}",
        op.name(), to_string(kind()), op.name(), fmt::join(kinds, ", "));
  }
  void run(CaseContext& c) const override {
    const Item probe = c.item(0);
    const std::int64_t pos = position_index(c.point().text("position"), c.batch());
    const auto items = c.batch_around(probe, c.batch(), pos);
    const auto continuations = generated_tokens(c, c.run(c.request(items), Side::variant));
    const auto at = static_cast<std::size_t>(pos);
    const auto alone =
        logprob_sum_gradients(c, c.request({&probe}), {continuations.at(at)}, Side::baseline);
    const auto batched = logprob_sum_gradients(c, c.request(items), continuations, Side::variant);
    c.compare(alone, {batched.at(at)},
              "the gradient of the generated tokens' log-probability sum "
              "w.r.t. the item's input embeddings, alone (batch of 1)",
              fmt::format("the same at position {} of a batch of {}", pos, c.batch()));
  }
};

}  // namespace

SAMEBITS_REGISTER_CHECK(logprob_gradient_invariance, LogprobGradientInvariance)

}  // namespace samebits
