// A decorator for negative controls on real op adapters: it runs the wrapped op and then changes
// one element of every output on one side of one check kind, so that check must see a violation.
#include "tests/support/planted_flaw.h"

#include <cmath>

namespace samebits {
namespace {

// A copy of t whose first element is far from where it was.
at::Tensor moved(const at::Tensor& t) {
  if (t.numel() == 0) return t;
  at::Tensor out = t.clone();
  at::Tensor first = out.view({-1}).narrow(0, 0, 1);
  if (at::isFloatingType(t.scalar_type())) {
    const double x = first.cpu().to(at::kDouble).item<double>();
    first.fill_(std::isfinite(x) ? x + std::max(1.0, std::abs(x)) : 0.0);
  } else if (t.scalar_type() == at::kBool) {
    first.logical_not_();
  } else {
    first.add_(1);
  }
  return out;
}

class PlantedFlaw final : public Op {
 public:
  PlantedFlaw(std::unique_ptr<Op> inner, CheckKind flaw, std::string against,
              std::optional<std::string> only_output)
      : inner_(std::move(inner)),
        flaw_(flaw),
        against_(std::move(against)),
        only_output_(std::move(only_output)) {}

  std::string name() const override { return inner_->name(); }
  std::string description() const override { return inner_->description() + " (flawed)"; }
  std::vector<ImplSpec> implementations() const override { return inner_->implementations(); }
  std::vector<AxisSpec> axes() const override { return inner_->axes(); }
  std::vector<std::string> outputs() const override { return inner_->outputs(); }
  std::vector<std::string> impl_outputs(const std::string& impl) const override {
    return inner_->impl_outputs(impl);
  }
  std::vector<CheckKind> checks() const override { return inner_->checks(); }
  std::vector<LayoutKind> layouts() const override { return inner_->layouts(); }
  std::vector<PaddingMode> paddings() const override { return inner_->paddings(); }
  std::optional<std::string> impossible(const Point& p) const override {
    return inner_->impossible(p);
  }
  std::optional<std::string> unsupported(const Point& p, const std::string& impl,
                                         const at::Device& device) const override {
    return inner_->unsupported(p, impl, device);
  }
  Shared make_shared(const Point& p, const at::Device& device, at::Generator& gen) const override {
    return inner_->make_shared(p, device, gen);
  }
  Item make_item(const Point& p, const Shared& shared, const ItemSpec& spec,
                 const at::Device& device, at::Generator& gen) const override {
    return inner_->make_item(p, shared, spec, device, gen);
  }
  PointProperties dispatch_properties(const Point& p, const BatchRequest& r) const override {
    return inner_->dispatch_properties(p, r);
  }
  Outputs reference(const Point& p, const Shared& shared, const Item& item) const override {
    return inner_->reference(p, shared, item);
  }

  bool scores() const override { return inner_->scores(); }
  // The training forward keeps its bits but under logprob_gradient_invariance, where the scored
  // log-probabilities of a batch of more than one move (never the embeddings, the leaves).
  std::vector<Outputs> score(const Point& p, const Shared& shared,
                             const ScoreRequest& r) const override {
    std::vector<Outputs> out = inner_->score(p, shared, r);
    if (flaw_ != CheckKind::logprob_gradient_invariance || r.request.items.size() < 2) return out;
    for (auto& outs : out) {
      for (auto& o : outs) {
        if (o.name == "logprobs") o.value = moved(o.value);
      }
    }
    return out;
  }

  std::vector<Outputs> run(const Point& p, const Shared& shared,
                           const BatchRequest& r) const override {
    std::vector<Outputs> out = inner_->run(p, shared, r);
    const bool repeat = calls_++ % 2 == 1;
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (!applies(r, i, repeat)) continue;
      for (auto& o : out[i]) {
        // logprob_consistency: the log-probabilities alone; a moved token would be scored.
        const bool logprobs_only = flaw_ == CheckKind::logprob_consistency;
        if (logprobs_only ? o.name == "logprobs" : !only_output_ || o.name == *only_output_)
          o.value = moved(o.value);
      }
    }
    return out;
  }

 private:
  bool applies(const BatchRequest& r, std::size_t item, bool repeat) const {
    switch (flaw_) {
      case CheckKind::determinism: return repeat;
      case CheckKind::batch_invariance: return r.items.size() > 1;
      case CheckKind::position_invariance: return item > 0;
      case CheckKind::layout_invariance: return r.layout.kind != LayoutKind::contiguous;
      case CheckKind::padding_invariance: return r.padding.has_value();
      case CheckKind::chunking_invariance: return r.chunk > 0;
      case CheckKind::equivalence: return r.impl != against_;
      case CheckKind::reference: return true;
      // The moved element is a constant, so its output's upstream gradient stops there.
      case CheckKind::gradient_invariance: return r.items.size() > 1;
      case CheckKind::gradient_determinism: return repeat;
      // The decode path's outputs move; the training forward (score) keeps its bits.
      case CheckKind::logprob_consistency: return true;
      case CheckKind::logprob_gradient_invariance: return false;  // in score() instead
    }
    return false;
  }

  std::unique_ptr<Op> inner_;
  CheckKind flaw_;
  std::string against_;
  std::optional<std::string> only_output_;
  mutable std::size_t calls_ = 0;  // cases run one after another, each calling run() in turn
};

}  // namespace

std::unique_ptr<Op> make_planted_flaw(std::unique_ptr<Op> inner, CheckKind flaw,
                                      std::string against, std::optional<std::string> only_output) {
  return std::make_unique<PlantedFlaw>(std::move(inner), flaw, std::move(against),
                                       std::move(only_output));
}

}  // namespace samebits
