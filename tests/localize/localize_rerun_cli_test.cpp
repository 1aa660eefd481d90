// `samebits localize` writing its first divergent op as a contract, through the built binary: the
// planted control's contract lands beside the report, `validate` accepts it and the command the
// finding prints runs it; a run that finds nothing writes none; a bad path exits 2 before work.
#include <gtest/gtest.h>

#include "tests/cli/cli_fixture.h"

namespace samebits {
namespace {

using LocalizeRerunCli = CliTest;

constexpr const char* kPlanted =
    "localize --model decoder:tiny --mix samebits --batch 4 --item 1 --length 24 --seed 3 "
    "--device cpu --no-follow ";

TEST_F(LocalizeRerunCli, ThePlantedControlsOpIsWrittenBesideTheReportAndRuns) {
  const fs::path json = dir / "localize.json", contract = dir / "first-divergence.json";
  const Result r = samebits(std::string(kPlanted) + "--plant 1 --report " + quoted(json));
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  ASSERT_TRUE(fs::exists(contract)) << r.out;
  const std::string command = "samebits run " + contract.string() + " --device cpu";
  EXPECT_NE(r.out.find("rerun alone (batch_invariance): " + command), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rerun contract: " + contract.string()), std::string::npos) << r.out;
  const Json j = Json::parse(read_text(json));
  EXPECT_EQ(j["rerun"]["check"], "batch_invariance");
  EXPECT_EQ(j["rerun"]["contract"], contract.string());
  EXPECT_EQ(j["rerun"]["command"], command);
  EXPECT_TRUE(j["rerun"]["why_not"].is_null());

  const Json c = Json::parse(read_text(contract));
  EXPECT_EQ(c["op"], "aten::sub.Tensor");
  EXPECT_EQ(c["inputs"][0], Json::parse(R"({"arg": "self", "shape": ["T", 128],
                                            "dtype": "bfloat16", "batch_dim": 0})"));
  EXPECT_EQ(c["inputs"][1]["batch_dim"], "none") << "the batch's mean reaches sub as `other`";
  EXPECT_EQ(c["sweep"], Json::parse(R"({"T": [24]})"));
  EXPECT_EQ(c["checks"][0]["sweep"]["position"], Json::parse(R"(["middle"])"));
  const Result valid = samebits("validate " + quoted(contract));
  EXPECT_EQ(valid.exit_code, 0) << explain(valid);
  // The command as printed: sub itself is row-wise, so alone it holds (exit 0); the divergence
  // came in through `other`, which the contract's description says.
  const fs::path report = dir / "rerun-report.json";
  const Result rerun =
      samebits(command.substr(std::string("samebits ").size()) + " --report " + quoted(report));
  EXPECT_EQ(rerun.exit_code, 0) << explain(rerun);
  const Json cases = Json::parse(read_text(report))["cases"];
  ASSERT_FALSE(cases.empty());
  for (const auto& one : cases) EXPECT_EQ(one["verdict"], "holds") << one["id"];
  EXPECT_NE(
      c["description"].get<std::string>().find("other [1, 128] holds none of the item's rows"),
      std::string::npos)
      << c["description"];
}

TEST_F(LocalizeRerunCli, NothingDivergesNothingWritten) {
  const fs::path json = dir / "localize.json", contract = dir / "rerun.json";
  const Result r = samebits(std::string(kPlanted) + "--report " + quoted(json) +
                            " --rerun-contract " + quoted(contract));
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_NE(r.out.find(": identical"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(contract));
  EXPECT_FALSE(fs::exists(dir / "first-divergence.json"));
  EXPECT_EQ(r.out.find("rerun"), std::string::npos) << r.out;
  EXPECT_TRUE(Json::parse(read_text(json))["rerun"].is_null());
}

TEST_F(LocalizeRerunCli, AnUnwritablePathExitsTwoBeforeWork) {
  const Result r = samebits(std::string(kPlanted) + "--plant 1 --rerun-contract /dev/null/c.json");
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("--rerun-contract /dev/null/c.json: /dev/null is not a folder"),
            std::string::npos)
      << explain(r);
  EXPECT_EQ(r.out.find("localize alone"), std::string::npos) << "work began";
}

}  // namespace
}  // namespace samebits
