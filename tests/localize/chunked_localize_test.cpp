// localize over runs of calls (chunks, decode steps) against the whole prefill, on small callables
// and the tiny decoder's samebits mix (row-wise): nothing found, the planted control named exactly.
#include <gtest/gtest.h>

#include "harness/localize/call_sequence.h"
#include "harness/localize/decoder_localize.h"
#include "harness/localize/op_recorder.h"

namespace samebits::localize {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace chunked_localize_test_file {}
using namespace chunked_localize_test_file;
namespace chunked_localize_test_file {

// A row-wise model of 9 rows and, planted, one whose rows follow the call's other rows.
at::Tensor rows_input() {
  return at::arange(27, at::kFloat).view({9, 3}).mul_(0.37).sin_();
}

void model(const at::Tensor& x, bool planted) {
  at::Tensor y = at::relu(x) * 0.5 + x.abs();
  if (planted) y = y - y.mean(0, /*keepdim=*/true) * 0.25;
  y.mul(2);
}

// The model over all 9 rows (a) and over chunks of 4, 4 and 1 (b), recorded.
std::pair<Recording, CallSequence> chunked_runs(bool planted) {
  const at::Tensor x = rows_input();
  Recording a = record([&] { model(x, planted); }, {whole_run(9), false, {}});
  std::vector<RecordedCall> calls;
  for (const auto& [from, n] : std::vector<std::pair<int, int>>{{0, 4}, {4, 4}, {8, 1}}) {
    const at::Tensor part = x.narrow(0, from, n).clone();
    calls.push_back({"chunk." + std::to_string(from / 4),
                     record([&] { model(part, planted); }, {whole_run(n), false, {}})});
  }
  return {std::move(a), join_calls(std::move(calls))};
}

TEST(CallSequence, JoinsCallsWithRenumberedOpsNamedRegionsAndConsecutiveWindows) {
  const auto [a, b] = chunked_runs(false);
  ASSERT_EQ(b.windows.size(), 3u);
  EXPECT_EQ(b.windows[1].call, "chunk.1");
  EXPECT_EQ(b.windows[1].offset, 4);
  EXPECT_EQ(b.windows[2].offset, 8);
  EXPECT_EQ(b.windows[2].length, 1);
  EXPECT_EQ(b.windows[2].end, b.joined.ops.size());
  EXPECT_EQ(b.joined.map.length, 9);
  for (const Window& w : b.windows) {
    for (std::size_t i = w.begin; i < w.end; ++i) {
      const std::int64_t parent = b.joined.ops[i].parent;  // completes after its calls, same call
      EXPECT_EQ(b.joined.ops[i].ordinal, static_cast<std::int64_t>(i));
      if (parent < 0) continue;
      EXPECT_GT(parent, static_cast<std::int64_t>(i));
      EXPECT_LT(parent, static_cast<std::int64_t>(w.end));
    }
  }
  const OpRecord& last = b.joined.ops.back();
  EXPECT_EQ(last.region, "chunk.2");
  EXPECT_EQ(b.joined.ops[b.windows[1].begin].region.rfind("chunk.1", 0), 0u);
  EXPECT_THROW(join_calls({}), std::invalid_argument);
}

TEST(CallSequence, RowWiseModelIsIdenticalChunkedAndWhole) {
  const auto [a, b] = chunked_runs(false);
  const Localization l = localize(a, b.joined, b.windows);
  EXPECT_FALSE(l.first.has_value());
  EXPECT_EQ(l.differs, 0u);
  EXPECT_EQ(l.unmatched_a + l.unmatched_b, 0u);
  // Every op of every chunk compared on its rows of the whole run, and found equal.
  EXPECT_EQ(l.equal, l.ops.size());
  EXPECT_EQ(l.ops.size() % 3, 0u);
  EXPECT_GE(l.ops.size(), 3 * 4u);
}

TEST(CallSequence, PlantedMeanIsFoundInTheFirstChunk) {
  const auto [a, b] = chunked_runs(true);
  const Localization l = localize(a, b.joined, b.windows);
  ASSERT_TRUE(l.first.has_value());
  const OpRecord& op = b.joined.ops.at(*l.ops.at(*l.first).b);
  // The mean's one row holds no item row (not comparable): its rows land in the subtraction.
  EXPECT_EQ(full_name(op), "aten::sub.Tensor");
  EXPECT_EQ(op.region, "chunk.0");
  EXPECT_LT(*l.ops.at(*l.first).b, b.windows[0].end);
  ASSERT_TRUE(l.first_diff.has_value());
  EXPECT_EQ(l.first_diff->shape, (std::vector<std::int64_t>{4, 3}));
}

TEST(CallSequence, OneCallIsTheWholeRun) {
  const auto [a, b] = chunked_runs(false);
  const std::vector<Window> w = one_call(a, b.joined);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].end, b.joined.ops.size());
  EXPECT_EQ(w[0].length, 9);
}

DecoderSetup invariant_setup(Compare compare) {
  DecoderSetup s;
  s.mix = "samebits";
  s.compare = compare;
  s.length = 24;
  s.seed = 11;
  return s;
}

const OpRecord& first_op(const Finding& f) {
  return f.b.recording.ops.at(*f.result.ops.at(*f.result.first).b);
}

class InCalls : public ::testing::TestWithParam<Compare> {};

TEST_P(InCalls, SamebitsMixIsIdentical) {
  const Finding f = localize_decoder(invariant_setup(GetParam()), /*follow=*/true);
  EXPECT_EQ(verdict(f), "identical");
  const std::size_t calls = GetParam() == Compare::chunked_vs_whole ? 4 : 24;  // ceil(24 / 7)
  EXPECT_EQ(f.subject["calls"], calls);
  EXPECT_GT(f.result.equal, 20 * calls);
  EXPECT_EQ(f.result.differs, 0u);
  EXPECT_TRUE(f.follow_ups.empty());
}

TEST_P(InCalls, NamesThePlantedLayerInTheFirstCall) {
  DecoderSetup s = invariant_setup(GetParam());
  s.planted_layer = 1;
  const Finding f = localize_decoder(s, /*follow=*/true);
  ASSERT_EQ(verdict(f), "diverges");
  const OpRecord& op = first_op(f);
  const bool chunked = GetParam() == Compare::chunked_vs_whole;
  EXPECT_EQ(full_name(op), "aten::sub.Tensor");
  EXPECT_EQ(op.region, std::string(chunked ? "chunk.0" : "step.0") + "/layer.1.mlp_norm");
  ASSERT_TRUE(f.result.first_diff.has_value());
  EXPECT_GT(f.result.first_diff->mismatched, 0);
  // The call's rows of d_model 128: the first chunk's 7, or the first step's one token.
  EXPECT_EQ(f.result.first_diff->shape, (std::vector<std::int64_t>{chunked ? 7 : 1, 128}));
  // a's op is the whole prefill's, over all 24 rows.
  const OpRecord& whole = f.a.recording.ops.at(*f.result.ops.at(*f.result.first).a);
  EXPECT_EQ(whole.region, "layer.1.mlp_norm");
  EXPECT_EQ(whole.outputs.at(0).meta.shape, (std::vector<std::int64_t>{24, 128}));
  EXPECT_TRUE(f.follow_ups.empty());
}

INSTANTIATE_TEST_SUITE_P(Comparisons, InCalls,
                         ::testing::Values(Compare::chunked_vs_whole, Compare::prefill_vs_decode),
                         [](const auto& info) { return to_string(info.param); });

std::string message(const DecoderSetup& s) {
  try {
    check_setup(s);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "accepted";
}

TEST(InCallsSetup, BadChunksNameTheFlagAndTheAcceptedValues) {
  DecoderSetup s = invariant_setup(Compare::chunked_vs_whole);
  EXPECT_EQ(message(s), "accepted");
  for (const std::int64_t chunk : {0, -3, 24, 99}) {
    s.chunk = chunk;
    EXPECT_EQ(message(s), "--chunk: " + std::to_string(chunk) +
                              "; accepted: 1 to 23 (fewer than --length 24, so that the prompt "
                              "takes at least two chunks)");
  }
  s.chunk.reset();
  s.length = 7;
  EXPECT_EQ(message(s).rfind("--chunk: 7 (the default); accepted: 1 to 6", 0), 0u) << message(s);
  s = invariant_setup(Compare::prefill_vs_decode);
  s.chunk = 3;
  EXPECT_EQ(message(s),
            "--chunk: 3; accepted: only with --compare chunked_vs_whole (prefill_vs_decode feeds "
            "one token per decode step)");
  s = invariant_setup(Compare::alone_vs_batch);
  s.chunk = 3;
  EXPECT_EQ(message(s).rfind("--chunk: 3; accepted: only with --compare chunked_vs_whole", 0), 0u);
  s = invariant_setup(Compare::prefill_vs_decode);
  s.length = 1;
  EXPECT_EQ(message(s).rfind("--length: 1; accepted: at least 2 tokens for prefill_vs_decode", 0),
            0u)
      << message(s);
  s = invariant_setup(Compare::chunked_vs_whole);
  s.step = Step::decode;
  EXPECT_EQ(message(s).rfind("--step: decode; accepted: prefill for chunked_vs_whole", 0), 0u);
  EXPECT_EQ(parse_compare("prefill_vs_decode"), Compare::prefill_vs_decode);
  EXPECT_EQ(to_string(parse_compare("chunked_vs_whole")), "chunked_vs_whole");
}

}  // namespace chunked_localize_test_file
}  // namespace samebits::localize
