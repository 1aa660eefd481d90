// The decoder's serving loop on the CPU: each request gets its tokens and prompt log-probabilities
// whatever the arrival and chunking, and the rows it reads are the positions it says they are.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "harness/ops/decoder/engine.h"

namespace samebits::decoder {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace decoder_engine_test_file {}
using namespace decoder_engine_test_file;
namespace decoder_engine_test_file {

struct Tiny {
  ModelConfig config = model_config("tiny");
  at::Generator gen = at::detail::createCPUGenerator(7);
  Weights weights = make_weights(config, at::kBFloat16, at::kCPU, gen, 128);
};

std::vector<std::int64_t> prompt_of(std::int64_t length, std::int64_t seed, std::int64_t vocab) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < length; ++i) out.push_back((seed * 131 + i * 37) % vocab);
  return out;
}

// Requests of 5, 1 and 17 tokens arriving at steps 0, 2 and 1, prefilled in chunks of 4: each
// gets new_tokens greedy tokens with log-probabilities <= 0, and one log-probability per prompt
// token after the first.
TEST(DecoderEngine, EveryRequestGetsItsTokensAndPromptLogprobs) {
  Tiny t;
  const std::vector<Request> requests = {{prompt_of(5, 1, t.config.vocab), 0},
                                         {prompt_of(1, 2, t.config.vocab), 2},
                                         {prompt_of(17, 3, t.config.vocab), 1}};
  Schedule s;
  s.new_tokens = 5;
  s.chunk = 4;
  const auto served = serve(t.config, t.weights, op_mix("samebits.attention"), requests, s);
  ASSERT_EQ(served.size(), 3u);
  for (std::size_t i = 0; i < served.size(); ++i) {
    EXPECT_EQ(served[i].tokens.numel(), 5) << i;
    EXPECT_EQ(served[i].logprobs.numel(), 5) << i;
    EXPECT_EQ(served[i].prompt_logprobs.numel(),
              static_cast<std::int64_t>(requests[i].prompt.size()) - 1)
        << i;
    EXPECT_TRUE((served[i].tokens >= 0).all().item<bool>()) << i;
    EXPECT_TRUE((served[i].tokens < t.config.vocab).all().item<bool>()) << i;
    EXPECT_TRUE((served[i].logprobs <= 0).all().item<bool>()) << i;
    EXPECT_TRUE((served[i].prompt_logprobs <= 0).all().item<bool>()) << i;
  }
}

// One forward over prompt + completion (a trainer's, in one step) names the same rows as the
// engine: the prompt's log-probabilities are bitwise those the engine read from its one-shot
// prefill (the same call), and the first token is that forward's argmax at the prompt's end.
TEST(DecoderEngine, RowsAreThePositionsTheEngineSays) {
  Tiny t;
  const OpMix& mix = op_mix("samebits.attention");
  const auto prompt = prompt_of(11, 5, t.config.vocab);
  Schedule s;
  s.new_tokens = 4;
  const Served served = serve(t.config, t.weights, mix, {{prompt, 0}}, s).at(0);

  KvCache cache = make_cache(t.config, 4, at::kBFloat16, at::kCPU);
  StepBatch step;
  step.tokens = prompt;
  step.q_offsets = {0, static_cast<std::int64_t>(prompt.size())};
  step.cache_lengths = {0};
  step.pages = {{0}};
  for (std::int64_t r = 0; r < static_cast<std::int64_t>(prompt.size()); ++r)
    step.logit_rows.push_back(r);
  const at::Tensor lp = forward(t.config, t.weights, mix, cache, step);
  for (std::size_t p = 0; p + 1 < prompt.size(); ++p) {
    const float expected = lp[static_cast<std::int64_t>(p)][prompt[p + 1]].item<float>();
    EXPECT_EQ(served.prompt_logprobs[static_cast<std::int64_t>(p)].item<float>(), expected) << p;
  }
  const at::Tensor last = lp[static_cast<std::int64_t>(prompt.size()) - 1];
  EXPECT_EQ(served.tokens[0].item<std::int64_t>(), last.argmax().item<std::int64_t>());
  EXPECT_EQ(served.logprobs[0].item<float>(), last.max().item<float>());
}

// The step's read-back, row by row: the greedy token is the lowest id among equal maxima (a
// two-way tie, a row all equal, a tie of -0 with +0), the log-probability is lp's own bits at the
// wanted column (the next prompt token) or at the greedy one, and a NaN row has no greedy token.
TEST(DecoderEngine, PickedRowsKeepTheLowestIdOfATieAndLpsBits) {
  const float nz = -0.0f;
  const at::Tensor lp = at::tensor({-3.5f,  -0.25f, -7.0f, -0.25f, -9.0f,  //
                                    -1.0f,  -1.0f,  -1.0f, -1.0f,  -1.0f,  //
                                    -2.0f,  -4.0f,  -6.0f, -8.0f,  -0.5f,  //
                                    nz,     -1.0f,  0.0f,  -2.0f,  -3.0f,  //
                                    -0.75f, -0.5f,  -0.5f, -1.5f,  -2.5f})
                            .view({5, 5});
  const RowPicks picks = pick_rows(lp, {-1, -1, 3, -1, 0});
  EXPECT_EQ(picks.greedy, (std::vector<std::int64_t>{1, 0, 4, 0, 1}));
  ASSERT_EQ(picks.logprob.size(), 5u);
  const std::vector<std::pair<std::int64_t, std::int64_t>> read = {
      {0, 1}, {1, 0}, {2, 3}, {3, 0}, {4, 0}};
  for (std::size_t row = 0; row < read.size(); ++row) {
    const float expected = lp[read[row].first][read[row].second].item<float>();
    EXPECT_EQ(std::memcmp(&picks.logprob[row], &expected, sizeof(float)), 0) << row;
  }
  EXPECT_TRUE(std::signbit(picks.logprob[3])) << "-0 keeps its sign";
  // The old read-back's rule, for every row: where(lp == max, id, V).amin.
  const at::Tensor ids = at::arange(5, at::kLong);
  const at::Tensor rule =
      at::where(lp == lp.amax(-1, true), ids.unsqueeze(0), 5).amin(-1).contiguous();
  EXPECT_EQ(picks.greedy, std::vector<std::int64_t>(rule.data_ptr<std::int64_t>(),
                                                    rule.data_ptr<std::int64_t>() + 5));

  at::Tensor with_nan = lp.clone();
  with_nan[2][1] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_NO_THROW(pick_rows(with_nan, {-1, -1, 3, -1, 0})) << "a NaN row read at a prompt token";
  EXPECT_THROW(pick_rows(with_nan, {-1, -1, -1, -1, 0}), std::runtime_error);
}

// An unknown op mix or model names the accepted ones.
TEST(DecoderEngine, UnknownNamesAreRefusedNamingTheAccepted) {
  try {
    op_mix("cublas");
    FAIL() << "accepted an unknown mix";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "accepted: aten, samebits.attention, samebits.except_linear, samebits"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(model_config("huge"), std::invalid_argument);
}

}  // namespace decoder_engine_test_file
}  // namespace samebits::decoder
