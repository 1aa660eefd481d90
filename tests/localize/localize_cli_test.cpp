// `samebits localize` as a process: bad flags exit 2 naming the flag and what it accepts, before
// any work; the planted control's run writes the JSON (versioned, the planted op first) and a
// self-contained HTML page.
#include <gtest/gtest.h>

#include "tests/cli/cli_fixture.h"

namespace samebits {
namespace {

using LocalizeCli = CliTest;

TEST_F(LocalizeCli, BadFlagsNameTheFlagAndTheAcceptedValues) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--compare sideways",
       "--compare: unknown \"sideways\"; accepted: alone_vs_batch, run_vs_run, chunked_vs_whole, "
       "prefill_vs_decode"},
      // One row per comparison of calls; the rest of their checks run in-process (InCallsSetup).
      {"--compare chunked_vs_whole --chunk 0", "--chunk: 0; accepted: 1 to 23 (fewer than"},
      {"--compare prefill_vs_decode --chunk 1",
       "--chunk: 1; accepted: only with --compare chunked_vs_whole (prefill_vs_decode feeds one "
       "token per decode step)"},
      {"--model gpt2", "--model: unknown model \"gpt2\"; accepted: decoder:tiny, decoder:small"},
      {"--mix fast", "--mix: unknown decoder op mix \"fast\""},
      {"--batch 4 --item 4", "--item: 4; accepted: 0 to 3"},
      {"--plant 7", "--plant: layer 7; accepted: -1 (none) or 0 to 1"},
      {"--device tpu", "--device: unknown \"tpu\"; accepted: auto, cpu, cuda"},
      {"--dtype float32", "--dtype: \"float32\"; accepted: bfloat16, float16 (the decoder's)"},
      {"--step verify", "--step: unknown \"verify\"; accepted: prefill, decode"},
      {"--samebits linear,conv", "--samebits: unknown op family \"conv\""},
      {"--report /dev/null/r.json", "--report /dev/null/r.json: /dev/null is not a folder"},
      {"--report same.json --html same.json", "--html same.json: the same file as --report"},
  };
  for (const auto& [args, said] : cases) {
    const bool device = args.find("--device") != std::string::npos;
    const Result r = samebits("localize " + std::string(device ? "" : "--device cpu ") + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << explain(r);
    EXPECT_NE(r.err.find(said), std::string::npos) << args << "\n" << explain(r);
    EXPECT_EQ(r.out.find("localize alone"), std::string::npos) << args << ": work began";
  }
}

TEST_F(LocalizeCli, ThePlantedControlIsReportedInJsonAndHtml) {
  const fs::path json = dir / "localize.json", html = dir / "localize.html";
  const Result r = samebits(
      "localize --model decoder:tiny --mix samebits --batch 4 --item 1 --length 24 --seed 3 "
      "--plant 1 --device cpu --report " +
      quoted(json) + " --html " + quoted(html));
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_NE(r.out.find("first divergence"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("aten::sub.Tensor in layer.1.mlp_norm"), std::string::npos) << r.out;
  const Json j = Json::parse(read_text(json));
  EXPECT_EQ(j.begin().key(), "schema");
  EXPECT_EQ(j["schema"], "samebits.localize/1");
  EXPECT_EQ(j["verdict"], "diverges");
  EXPECT_EQ(j["first_divergence"]["op"], "aten::sub.Tensor");
  EXPECT_EQ(j["first_divergence"]["region"], "layer.1.mlp_norm");
  EXPECT_EQ(j["first_divergence"]["alone"]["outputs"][0]["shape"], Json::parse("[24, 128]"));
  EXPECT_EQ(j["first_divergence"]["batch"]["outputs"][0]["shape"][0], j["subject"]["batch_tokens"]);
  EXPECT_TRUE(j["first_divergence"]["batch"]["kernels"].is_null());
  EXPECT_EQ(j["timeline"][0]["status"], "differs");
  EXPECT_GT(j["overhead"]["plain_ms"].get<double>(), 0);
  EXPECT_GT(j["overhead"]["recorded_ms"].get<double>(), 0);
  const std::string page = read_text(html);
  EXPECT_NE(page.find("<svg"), std::string::npos);
  EXPECT_NE(page.find("aten::sub.Tensor in layer.1.mlp_norm"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("http://"), page.find("http://www.w3.org/2000/svg")) << "no other link";
}

// A run of calls through the flags, small (prefill_vs_decode's runs in-process): --chunk reaches
// the engine, the planted control is named in the first chunk, on the sides the comparison names.
TEST_F(LocalizeCli, ChunkedRunNamesThePlantInTheFirstChunk) {
  const fs::path json = dir / "chunked.json";
  const Result r = samebits(
      "localize --mix samebits --length 7 --seed 3 --plant 0 --no-follow --device cpu "
      "--compare chunked_vs_whole --chunk 3 --report " +
      quoted(json));
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_NE(r.out.find("aten::sub.Tensor in chunk.0/layer.0.mlp_norm"), std::string::npos) << r.out;
  const Json j = Json::parse(read_text(json));
  EXPECT_EQ(j["verdict"], "diverges");
  EXPECT_EQ(j["first_divergence"]["region"], "chunk.0/layer.0.mlp_norm");
  EXPECT_EQ(j["first_divergence"]["whole"]["region"], "layer.0.mlp_norm");
  EXPECT_EQ(j["first_divergence"]["chunked"]["outputs"][0]["shape"], Json::parse("[3, 128]"));
  EXPECT_EQ(j["sides"][1]["name"], "chunked");
  EXPECT_EQ(j["subject"]["chunk"], 3);
  EXPECT_EQ(j["subject"]["calls"], 3);
}

}  // namespace
}  // namespace samebits
