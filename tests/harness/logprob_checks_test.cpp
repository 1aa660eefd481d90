// The logprob kinds on the decoder: the decode path's log-probabilities of a completion equal a
// training forward's for the samebits mix, a batch-reading layer breaks that, and a gradient flows.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/errors.h"
#include "harness/ops/decoder/engine.h"
#include "harness/ops/ops.h"
#include "harness/plan.h"
#include "tests/support/planted_flaw.h"
#include "tests/support/run_contracts.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace logprob_checks_test_file {}
using namespace logprob_checks_test_file;
namespace logprob_checks_test_file {

std::vector<std::unique_ptr<Contract>> contracts_of(const std::string& text) {
  std::vector<std::unique_ptr<Contract>> out;
  out.push_back(std::make_unique<Contract>(parse_contract(text, "logprob/test.json")));
  return out;
}

std::string describe(const CaseResult& r) {
  std::string out = r.id + ": " + to_string(r.verdict);
  if (!r.reason.empty()) out += " (" + r.reason + ")";
  for (const auto& o : r.outputs) {
    out += "\n  " + o.name + ": " + std::to_string(o.diff.mismatched) + " of " +
           std::to_string(o.diff.numel) + " differ";
  }
  return out;
}

// The built-in ops, the decoder wrapped in a planted flaw breaking `flaw` where given.
OpRegistry registry_with(std::optional<CheckKind> flaw) {
  if (!flaw) return OpRegistry::builtin();
  OpRegistry registry;
  for (auto& op : make_builtin_ops())
    registry.add(op->name() == "decoder" ? make_planted_flaw(std::move(op), *flaw) : std::move(op));
  return registry;
}

// The decoder's tiny model on the CPU: prompts of 12 tokens (neighbours 1 to 24), 5 generated.
std::vector<CaseResult> run_decoder(const std::string& impl,
                                    std::optional<CheckKind> flaw = std::nullopt) {
  const OpRegistry registry = registry_with(flaw);
  return run_contracts(contracts_of(R"({"op": "decoder", "implementations": [")" + impl + R"("],
    "sweep": {"model": ["tiny"], "dtype": ["bfloat16"], "L": [12], "new_tokens": [5]},
    "checks": [
      {"kind": "logprob_consistency", "compare": "bitwise",
       "sweep": {"batch": [1, 3], "position": ["first", "last"], "chunk": [0, 5]},
       "expect": {")" + impl + R"(": "observed"}},
      {"kind": "logprob_gradient_invariance", "compare": "bitwise",
       "sweep": {"batch": [3], "position": ["first", "last"]},
       "expect": {")" + impl + R"(": "observed"}}]})"),
                       registry, "cpu");
}

std::vector<CaseResult> of_kind(const std::vector<CaseResult>& results, CheckKind kind) {
  std::vector<CaseResult> out;
  for (const auto& r : results) {
    if (r.kind == kind) out.push_back(r);
  }
  return out;
}

// Every samebits op is batch- and row-count-invariant on the CPU, so the decode path and the
// training forward agree to the bit, alone and at either end of a batch; no samebits kernel has a
// backward inside the decoder, so the gradient kind is skipped naming the first op it met.
TEST(LogprobChecks, SamebitsMixMatchesTheTrainingForwardBitwise) {
  const auto results = run_decoder("samebits");
  const auto consistency = of_kind(results, CheckKind::logprob_consistency);
  ASSERT_EQ(consistency.size(), 8u) << "batches of 1 and 3, at first and last, chunks 0 and 5";
  for (const auto& r : consistency) {
    EXPECT_EQ(r.verdict, Verdict::holds) << describe(r);
    ASSERT_EQ(r.outputs.size(), 1u) << describe(r);
    EXPECT_EQ(r.outputs[0].name, "logprobs");
    EXPECT_EQ(r.outputs[0].diff.numel, 5) << "one log-probability per generated token";
  }
  const auto gradients = of_kind(results, CheckKind::logprob_gradient_invariance);
  ASSERT_FALSE(gradients.empty());
  for (const auto& r : gradients) {
    EXPECT_EQ(r.verdict, Verdict::skipped) << describe(r);
    EXPECT_EQ(r.reason, "samebits rms_norm has no backward") << describe(r);
  }
}

// ATen's mix: both kinds run to a verdict (what it is, is the machine's); the gradient is one
// item's [prompt + completion, d_model] embeddings.
TEST(LogprobChecks, AtenMixRunsBothKinds) {
  const auto results = run_decoder("aten");
  ASSERT_EQ(results.size(), 10u);
  for (const auto& r : results) {
    EXPECT_TRUE(r.verdict == Verdict::holds || r.verdict == Verdict::violated) << describe(r);
    if (r.kind != CheckKind::logprob_gradient_invariance) continue;
    ASSERT_EQ(r.outputs.size(), 1u) << describe(r);
    EXPECT_EQ(r.outputs[0].name, "grad:embeddings");
    EXPECT_EQ(r.outputs[0].diff.numel, (12 + 5) * 128) << describe(r);
  }
}

// samebits attention inside ATen's mix: the gradient would miss attention's path, so it stops.
TEST(LogprobChecks, SamebitsAttentionWithoutBackwardIsSkippedNotWrong) {
  for (const auto& r :
       of_kind(run_decoder("samebits.attention"), CheckKind::logprob_gradient_invariance)) {
    EXPECT_EQ(r.verdict, Verdict::skipped) << describe(r);
    EXPECT_EQ(r.reason, "samebits attention has no backward") << describe(r);
  }
}

// The negative controls through the harness: the decode path's log-probabilities moved (the
// training forward untouched) fail every consistency case of the samebits mix, alone included;
// the training forward's log-probabilities of a batch with a constant element (its gradient
// stops there) fail ATen's gradient cases.
TEST(LogprobChecks, PlantedFlawsAreCaught) {
  const auto decode_moved = run_decoder("samebits", CheckKind::logprob_consistency);
  const auto consistency = of_kind(decode_moved, CheckKind::logprob_consistency);
  ASSERT_EQ(consistency.size(), 8u);
  for (const auto& r : consistency) EXPECT_EQ(r.verdict, Verdict::violated) << describe(r);
  const auto batch_moved = run_decoder("aten", CheckKind::logprob_gradient_invariance);
  const auto gradients = of_kind(batch_moved, CheckKind::logprob_gradient_invariance);
  ASSERT_EQ(gradients.size(), 2u);
  for (const auto& r : gradients) EXPECT_EQ(r.verdict, Verdict::violated) << describe(r);
}

// ---- the engine: serve() against score() ----

struct Tiny {
  decoder::ModelConfig config = decoder::model_config("tiny");
  at::Generator gen = at::detail::createCPUGenerator(11);
  decoder::Weights weights;
  explicit Tiny(at::ScalarType dtype = at::kBFloat16)
      : weights(decoder::make_weights(config, dtype, at::kCPU, gen, 128)) {}
};

std::vector<std::int64_t> prompt_of(std::int64_t length, std::int64_t seed, std::int64_t vocab) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < length; ++i) out.push_back((seed * 97 + i * 53) % vocab);
  return out;
}

// Serves two prompts in chunks of 4 (arriving at steps 0 and 1), then scores each prompt with its
// tokens in one forward; returns per request (decode-time, training-forward) log-probabilities.
std::vector<std::pair<at::Tensor, at::Tensor>> decode_and_score(const Tiny& t,
                                                                const decoder::OpMix& mix) {
  const std::vector<decoder::Request> requests = {{prompt_of(13, 1, t.config.vocab), 0},
                                                  {prompt_of(7, 2, t.config.vocab), 1}};
  decoder::Schedule s;
  s.new_tokens = 6;
  s.chunk = 4;
  const auto served = decoder::serve(t.config, t.weights, mix, requests, s);
  std::vector<std::vector<std::int64_t>> sequences;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    auto seq = requests[i].prompt;
    const at::Tensor tokens = served[i].tokens.contiguous();
    seq.insert(seq.end(), tokens.data_ptr<std::int64_t>(),
               tokens.data_ptr<std::int64_t>() + tokens.numel());
    sequences.push_back(std::move(seq));
  }
  const auto scored = decoder::score(t.config, t.weights, mix, sequences);
  std::vector<std::pair<at::Tensor, at::Tensor>> out;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const auto prompt = static_cast<std::int64_t>(requests[i].prompt.size());
    EXPECT_EQ(scored[i].numel(), prompt + 6 - 1) << "a log-probability per token after the first";
    out.emplace_back(served[i].logprobs, scored[i].narrow(0, prompt - 1, 6));
  }
  return out;
}

bool same_bits(const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor x = a.contiguous(), y = b.contiguous();
  return x.sizes() == y.sizes() && x.scalar_type() == y.scalar_type() &&
         std::memcmp(x.data_ptr(), y.data_ptr(), x.nbytes()) == 0;
}

TEST(LogprobEngine, ScoreReadsTheDecodePathsBitsUnderSamebits) {
  const Tiny t;
  for (const auto& [decoded, trained] : decode_and_score(t, decoder::op_mix("samebits"))) {
    EXPECT_TRUE(same_bits(decoded, trained)) << decoded << "\n" << trained;
    EXPECT_TRUE((decoded < 0).all().item<bool>()) << decoded;
  }
}

// The negative control: a layer whose rows follow the step's other rows (op_mix.h's planted
// layer) makes a decode step and the training forward, which hold different rows, disagree.
TEST(LogprobEngine, ALayerThatReadsTheBatchBreaksTheMatch) {
  const Tiny t;
  decoder::OpMix planted = decoder::op_mix("samebits");
  planted.planted_layer = 1;
  for (const auto& [decoded, trained] : decode_and_score(t, planted))
    EXPECT_FALSE(same_bits(decoded, trained)) << decoded << "\n" << trained;
}

// The training forward's gradient is the derivative of what it computes: in float32 through
// ATen's mix, the gradient of the summed log-probabilities w.r.t. the embeddings, along a random
// direction, against a central difference (step 1e-2; the function is smooth at this scale).
TEST(LogprobEngine, GradientMatchesACentralDifference) {
  const Tiny t(at::kFloat);
  const decoder::OpMix& mix = decoder::op_mix("aten");
  const std::vector<std::vector<std::int64_t>> sequences = {prompt_of(9, 3, t.config.vocab),
                                                            prompt_of(5, 4, t.config.vocab)};
  std::vector<at::Tensor> base;
  for (const auto& s : sequences)
    base.push_back(t.weights.embed.index_select(0, at::tensor(s, at::kLong)).to(at::kDouble));
  const auto total = [&](const std::vector<at::Tensor>& emb) {
    at::Tensor sum = at::zeros({}, at::kDouble);
    for (const auto& lp : decoder::score(t.config, t.weights, mix, sequences, emb))
      sum = sum + lp.to(at::kDouble).sum();
    return sum;
  };
  std::vector<at::Tensor> leaves;
  for (const auto& b : base) leaves.push_back(b.to(at::kFloat).requires_grad_(true));
  const at::Tensor value = total(leaves);
  value.backward();
  at::Generator gen = at::detail::createCPUGenerator(5);
  double analytic = 0;
  std::vector<at::Tensor> up, down, dirs;
  const double h = 1e-2;
  for (std::size_t i = 0; i < base.size(); ++i) {
    dirs.push_back(at::randn(base[i].sizes(), gen, at::kDouble));
    analytic += (leaves[i].grad().to(at::kDouble) * dirs[i]).sum().item<double>();
    up.push_back((base[i] + h * dirs[i]).to(at::kFloat));
    down.push_back((base[i] - h * dirs[i]).to(at::kFloat));
  }
  const at::NoGradGuard no_grad;
  const double numeric = (total(up) - total(down)).item<double>() / (2 * h);
  EXPECT_NEAR(analytic, numeric, 2e-2 * std::abs(numeric) + 1e-3)
      << "analytic " << analytic << ", central difference " << numeric;
}

// ---- validation ----

TEST(LogprobChecks, OpThatGeneratesNothingIsRefusedNamingWhatItTakes) {
  const OpRegistry registry = OpRegistry::builtin();
  const std::string head = R"({"op": "softmax", "implementations": ["aten"], "sweep": {"N": [7]},
    "checks": [{"kind": ")";
  try {
    validate_contract(
        *contracts_of(head + R"(logprob_consistency", "expect": {"aten": "observed"}}]})").front(),
        registry);
    FAIL() << "validate accepted logprob_consistency on softmax";
  } catch (const ContractError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "op softmax does not support check \"logprob_consistency\"; accepted: "),
              std::string::npos)
        << e.what();
  }
  try {
    validate_contract(*contracts_of(head + R"(logprob_gradient_invariance",
                                             "expect": {"aten": "observed"}}]})")
                           .front(),
                      registry);
    FAIL() << "validate accepted logprob_gradient_invariance on softmax";
  } catch (const ContractError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("logprob/test.json: /checks/0/kind"), std::string::npos) << what;
    EXPECT_NE(what.find("op softmax generates no tokens and scores none (Op::scores), so "
                        "logprob_gradient_invariance has no log-probabilities to differentiate"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("op softmax takes determinism"), std::string::npos) << what;
  }
}

}  // namespace logprob_checks_test_file
}  // namespace samebits
