// localize on the decoder at "tiny" size on the CPU, with the samebits mix (batch-invariant by
// construction there): alone vs batch and run vs run find nothing, and the planted control (one
// layer's MLP norm output made batch-dependent) is named exactly, layer and op.
#include "harness/localize/decoder_localize.h"

#include <gtest/gtest.h>

namespace samebits::localize {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace decoder_localize_test_file {}
using namespace decoder_localize_test_file;
namespace decoder_localize_test_file {

DecoderSetup invariant_setup() {
  DecoderSetup s;
  s.mix = "samebits";
  s.batch = 4;
  s.item = 2;
  s.length = 24;
  s.seed = 11;
  return s;
}

const OpRecord& first_op(const Finding& f) {
  return f.b.recording.ops.at(*f.result.ops.at(*f.result.first).b);
}

TEST(DecoderLocalize, SamebitsMixIsIdenticalAloneAndInABatch) {
  const Finding f = localize_decoder(invariant_setup(), /*follow=*/true);
  EXPECT_EQ(verdict(f), "identical");
  EXPECT_GT(f.result.equal, 20u);
  EXPECT_EQ(f.result.differs, 0u);
  EXPECT_TRUE(f.follow_ups.empty());
}

TEST(DecoderLocalize, RunVsRunFindsNothing) {
  DecoderSetup s = invariant_setup();
  s.compare = Compare::run_vs_run;
  s.planted_layer = 0;  // batch-dependent, yet the same batch twice gives the same bits
  const Finding f = localize_decoder(s, /*follow=*/false);
  EXPECT_EQ(verdict(f), "identical");
  EXPECT_EQ(f.result.unmatched_a + f.result.unmatched_b, 0u);
}

class PlantedControl : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(PlantedControl, NamesThePlantedLayerAndOp) {
  DecoderSetup s = invariant_setup();
  s.planted_layer = GetParam();
  const Finding f = localize_decoder(s, /*follow=*/true);
  ASSERT_EQ(verdict(f), "diverges");
  const OpRecord& op = first_op(f);
  EXPECT_EQ(full_name(op), "aten::sub.Tensor");
  EXPECT_EQ(op.region, "layer." + std::to_string(GetParam()) + ".mlp_norm");
  ASSERT_TRUE(f.result.first_diff.has_value());
  EXPECT_GT(f.result.first_diff->mismatched, 0);
  // The item's rows: its 24 tokens of d_model 128, in both runs.
  EXPECT_EQ(f.result.first_diff->shape, (std::vector<std::int64_t>{24, 128}));
  EXPECT_GT(f.result.differs, 1u) << "the divergence reaches the log-probabilities";
  // The plant is in no op family samebits replaces: nothing to follow.
  EXPECT_TRUE(f.follow_ups.empty());
}

INSTANTIATE_TEST_SUITE_P(Layers, PlantedControl, ::testing::Values(0, 1));

// A decode step (each prompt prefilled alone, then one token per sequence in one batch): the
// samebits mix gives the item's token the same bits, and the plant is named there too.
TEST(DecoderLocalize, DecodeStepIsIdenticalAndThePlantIsNamed) {
  DecoderSetup s = invariant_setup();
  s.step = Step::decode;
  const Finding clean = localize_decoder(s, /*follow=*/false);
  EXPECT_EQ(verdict(clean), "identical");
  EXPECT_GT(clean.result.equal, 20u);
  s.planted_layer = 1;
  const Finding planted = localize_decoder(s, /*follow=*/false);
  ASSERT_EQ(verdict(planted), "diverges");
  EXPECT_EQ(full_name(first_op(planted)), "aten::sub.Tensor");
  EXPECT_EQ(first_op(planted).region, "layer.1.mlp_norm");
  ASSERT_TRUE(planted.result.first_diff.has_value());
  EXPECT_EQ(planted.result.first_diff->shape, (std::vector<std::int64_t>{1, 128}));
}

TEST(DecoderLocalize, FamilyOfARegionIsItsInnermostOpFamily) {
  EXPECT_EQ(family_of("layer.0.attn.q/linear"), "linear");
  EXPECT_EQ(family_of("layer.3.attn/attention"), "attention");
  EXPECT_EQ(family_of("final_norm/add_rms_norm"), "add_rms_norm");
  EXPECT_EQ(family_of("layer.1.mlp_norm"), "");
  EXPECT_EQ(family_of(""), "");
}

TEST(DecoderLocalize, BadSetupsNameTheirFlag) {
  const auto message = [](const DecoderSetup& s) {
    try {
      check_setup(s);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  DecoderSetup s = invariant_setup();
  s.item = 4;
  EXPECT_EQ(message(s), "--item: 4; accepted: 0 to 3 (the item's place in the batch of 4)");
  s = invariant_setup();
  s.planted_layer = 2;
  EXPECT_EQ(message(s), "--plant: layer 2; accepted: -1 (none) or 0 to 1 (tiny has 2 layers)");
  s = invariant_setup();
  s.mix = "fast";
  EXPECT_EQ(message(s).rfind("--mix: unknown decoder op mix \"fast\"; accepted: aten,", 0), 0u)
      << message(s);
  s = invariant_setup();
  s.samebits_ops = {"conv"};
  EXPECT_EQ(message(s).rfind("--samebits: unknown op family \"conv\"; accepted: linear,", 0), 0u)
      << message(s);
  s = invariant_setup();
  s.batch = 1;
  EXPECT_EQ(message(s), "--batch: 1 sequences; accepted: at least 2 for alone_vs_batch");
  EXPECT_THROW(parse_compare("sideways"), std::invalid_argument);
  EXPECT_THROW(parse_step("verify"), std::invalid_argument);
}

}  // namespace decoder_localize_test_file
}  // namespace samebits::localize
