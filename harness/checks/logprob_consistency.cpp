// logprob_consistency: the log-probabilities of a generated sequence as the decode path computed
// them vs as a trainer's forward over the same tokens computes them: RL's train-inference match.
#include <fmt/format.h>

#include "harness/checks/batch_axes.h"
#include "harness/checks/check.h"
#include "harness/checks/scored_rollout.h"

namespace samebits {
namespace {

// Both sides run the same items in the same batch (alone at batch 1): the engine serves them
// (prefill, then greedy decode from the paged cache), and one training forward scores each prompt
// with the tokens it got. The op must generate (Op::scores), which its checks() then list.
class LogprobConsistency final : public Check {
 public:
  CheckKind kind() const override { return CheckKind::logprob_consistency; }
  std::string compares() const override {
    return "the log-probabilities of the item's generated tokens from the decode path (prompts "
           "prefilled whole or in chunks of `chunk`) vs from one training forward over its prompt "
           "and those tokens, alone or at `position` of a batch of `batch` on both sides";
  }
  std::vector<AxisSpec> axes() const override {
    return {batch_axis(1),
            position_axis(),
            {"chunk",
             AxisSpec::Type::integer,
             0,
             {},
             "how the serving side prefills prompts: 0 whole, c in chunks of c, 1 token by token"}};
  }
  std::optional<std::string> impossible(const Point& p) const override {
    if (p.integer("chunk") < 0) return "chunk must not be negative";
    return std::nullopt;
  }
  void run(CaseContext& c) const override {
    const Item probe = c.item(0);
    const std::int64_t pos = position_index(c.point().text("position"), c.batch());
    const auto items = c.batch_around(probe, c.batch(), pos);
    BatchRequest serving = c.request(items);
    serving.chunk = c.point().integer("chunk");
    const auto served = c.run(serving, Side::baseline);
    ScoreRequest score;
    score.request = c.request(items);
    score.continuations = generated_tokens(c, served);
    const auto trained = c.score(score, Side::variant);
    const auto at = static_cast<std::size_t>(pos);
    const std::string where =
        c.batch() == 1 ? "alone" : fmt::format("at position {} of a batch of {}", pos, c.batch());
    c.compare(
        {served.at(at)}, {trained.at(at)},
        fmt::format("the generated tokens' log-probabilities from the decode path, {}", where),
        fmt::format("the same from one training forward over prompt and tokens, {}", where));
  }
};

}  // namespace

SAMEBITS_REGISTER_CHECK(logprob_consistency, LogprobConsistency)

}  // namespace samebits
