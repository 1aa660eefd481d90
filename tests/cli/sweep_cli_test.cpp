// `samebits sweep` as a process: a sweep is a contract's cases grouped by point, so every point
// reruns under `samebits run --case` with the same bits; its map, errors and unwritable reports.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/cli/cli_fixture.h"

namespace samebits {
namespace {

// A report under a regular file, or one that cannot be written (a name over 255 bytes), is
// refused before any point runs (exit 2), naming --report and the path.
TEST_F(CliTest, SweepWithAnUnwritableReportIsRefused) {
  const fs::path under_file = contract / "report.json";
  Result r =
      samebits("sweep sum --set rows=4 --vary N=5:6 --device cpu --report " + quoted(under_file));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find(contract.string() + " is not a folder"), std::string::npos) << explain(r);
  EXPECT_FALSE(fs::exists(under_file));
  const fs::path too_long = dir / (std::string(300, 's') + ".json");
  r = samebits("sweep sum --set rows=4 --vary N=5:6 --device cpu --report " + quoted(too_long));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("--report " + too_long.string() + ": cannot write a file in"),
            std::string::npos)
      << explain(r);
  EXPECT_EQ(r.err.find("sweeping"), std::string::npos) << "no point ran: " << explain(r);
}

// `samebits sweep` on the CPU: no kernel capture, so the map holds result classes only. Pad-to-4 of
// exact inputs (multiples of 1/16: every sum exact) cannot change a bit, so padded:4 must agree.
TEST_F(CliTest, SweepOnTheCpuWritesADispatchSection) {
  const Result r = samebits(
      "sweep sum --set rows=8 --set dim=0 --set generator=exact --vary N=5:12 "
      "--layouts contiguous,padded:4 --device cpu --report " +
      quoted(report));
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  const Json j = Json::parse(read_text(report));
  ASSERT_TRUE(j.contains("dispatch")) << j.dump(1).substr(0, 2000);
  const Json& d = j["dispatch"];
  EXPECT_EQ(d["op"], "sum");
  EXPECT_EQ(d["axis"], "N");
  EXPECT_EQ(d["points"].size(), 8u);
  EXPECT_EQ(d["kernels_captured"], false);
  EXPECT_EQ(j["settings"]["kernel_capture"], "off");
  EXPECT_NE(r.out.find("same bits at all 8 points"), std::string::npos) << explain(r);
}

// Without --report a sweep writes samebits-sweep.json.gz here, gzipped, and `show` reads it.
TEST_F(CliTest, ASweepsDefaultReportIsGzipped) {
  const std::string command = "cd " + quoted(dir) + " && " + platform_prefix() + "'" + SAMEBITS_CLI +
                              "' sweep sum --set rows=4 --vary N=5:6 --device cpu >/dev/null 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const fs::path written = dir / "samebits-sweep.json.gz";
  ASSERT_TRUE(fs::exists(written)) << command;
  const std::string bytes = read_text(written);
  ASSERT_GE(bytes.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(bytes[1]), 0x8b);
  const Result shown = samebits("show " + quoted(written));
  EXPECT_EQ(shown.exit_code, 0) << explain(shown);
}

TEST_F(CliTest, SweepOfAnUnknownAxisListsTheAccepted) {
  const Result r = samebits("sweep sum --vary M=1:4 --device cpu --report " + quoted(report));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("no axis \"M\""), std::string::npos) << explain(r);
  EXPECT_NE(r.err.find("rows, N, dim"), std::string::npos) << explain(r);
  EXPECT_FALSE(fs::exists(report));
}

TEST_F(CliTest, SweepOfAnImpossiblePointIsRefusedBeforeRunning) {
  const Result r =
      samebits("sweep topk --set N=16 --vary k=8:20 --device cpu --report " + quoted(report));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("impossible point"), std::string::npos) << explain(r);
  EXPECT_FALSE(fs::exists(report));
}

// Every point of a sweep is a case `samebits run` reruns from the sweep's report alone: same id,
// seed, params and output digests on both sides.
TEST_F(CliTest, SweepPointReproducesUnderRunCase) {
  const Result r = samebits(
      "sweep sum --set rows=8 --set dim=0 --vary N=5:8 --layouts strided:1,padded:4 --device cpu "
      "--report " +
      quoted(report));
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  const Json sweep = Json::parse(read_text(report));
  ASSERT_EQ(sweep["cases"].size(), 8u) << "4 points x 2 layouts";
  const fs::path rerun = dir / "rerun.json";
  for (const std::size_t i : {std::size_t{0}, std::size_t{5}}) {
    const Json& chosen = sweep["cases"][i];
    const std::string id = chosen["id"].get<std::string>();
    SCOPED_TRACE(id);
    EXPECT_EQ(id.rfind("sweep-sum/layouts/aten/cpu/rows=8,dim=0,N=", 0), 0u);
    const Result again =
        samebits("run " + quoted(report) + " --case '" + id + "' --report " + quoted(rerun));
    ASSERT_EQ(again.exit_code, 0) << explain(again);
    const Json one = Json::parse(read_text(rerun));
    ASSERT_EQ(one["cases"].size(), 1u);
    const Json& c = one["cases"][0];
    EXPECT_EQ(c["id"], chosen["id"]);
    EXPECT_EQ(c["seed"], chosen["seed"]);
    EXPECT_EQ(c["params"], chosen["params"]);
    ASSERT_EQ(c["outputs"].size(), 1u);
    EXPECT_EQ(c["outputs"][0]["baseline_sha256"], chosen["outputs"][0]["baseline_sha256"]);
    EXPECT_EQ(c["outputs"][0]["variant_sha256"], chosen["outputs"][0]["variant_sha256"]);
  }
}

// The contract a sweep prints runs under `samebits run` into the same cases, bit for bit: one
// generator and one seed derivation serve both commands.
TEST_F(CliTest, SweepRunsTheCasesOfItsContract) {
  const std::string args =
      "sweep sum --set rows=4 --set dim=0 --vary N=5,9 --layouts offset:1 "
      "--device cpu";
  const Result printed = samebits(args + " --print-contract");
  ASSERT_EQ(printed.exit_code, 0) << explain(printed);
  const fs::path contract_file = dir / "sweep-sum.json";
  write_text(contract_file, printed.out);
  ASSERT_EQ(samebits(args + " --report " + quoted(report)).exit_code, 0);
  const fs::path run_report = dir / "run.json";
  const Result ran =
      samebits("run " + quoted(contract_file) + " --device cpu --report " + quoted(run_report));
  ASSERT_EQ(ran.exit_code, 0) << explain(ran);
  const Json a = Json::parse(read_text(report));
  const Json b = Json::parse(read_text(run_report));
  ASSERT_EQ(a["cases"].size(), 2u);
  ASSERT_EQ(b["cases"].size(), a["cases"].size());
  for (std::size_t i = 0; i < a["cases"].size(); ++i) {
    EXPECT_EQ(b["cases"][i]["id"], a["cases"][i]["id"]);
    EXPECT_EQ(b["cases"][i]["seed"], a["cases"][i]["seed"]);
    EXPECT_EQ(b["cases"][i]["outputs"], a["cases"][i]["outputs"]);
  }
  EXPECT_FALSE(b.contains("dispatch")) << "run reports hold no dispatch map";
}

// With no layout but contiguous, each point runs its batch twice (a determinism case), and the
// map has the one reference variant.
TEST_F(CliTest, SweepOverTheBatchRunsEachPointTwice) {
  const Result r = samebits(
      "sweep sum --set rows=1 --set dim=1 --set N=64 --vary batch=1:3 "
      "--device cpu --report " +
      quoted(report));
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  const Json j = Json::parse(read_text(report));
  ASSERT_EQ(j["cases"].size(), 3u);
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["kind"], "determinism");
    EXPECT_EQ(c["verdict"], "holds");
  }
  EXPECT_EQ(j["cases"][2]["params"]["batch"], 3);
  EXPECT_EQ(j["dispatch"]["variants"], Json::array({"contiguous"}));
  EXPECT_EQ(j["dispatch"]["points"].size(), 3u);
}

// --check batch_invariance along the batch: the first item alone against it first in a batch of
// each size. samebits' sum keeps its promise at every size, so no point differs; for aten's matmul
// (whatever this CPU does) the map's differing points are exactly the violated cases.
TEST_F(CliTest, SweepOfBatchInvarianceAlongTheBatch) {
  Result r = samebits(
      "sweep sum --impl samebits --check batch_invariance --set rows=8 --set N=100 "
      "--vary batch=1:6 --device cpu --report " +
      quoted(report));
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_NE(r.err.find("the first item alone against it first in the batch"), std::string::npos)
      << r.err;
  Json j = Json::parse(read_text(report));
  ASSERT_EQ(j["cases"].size(), 6u);
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["kind"], "batch_invariance");
    EXPECT_EQ(c["params"]["position"], "first");
    EXPECT_EQ(c["verdict"], "holds") << c["id"];
  }
  EXPECT_EQ(j["dispatch"]["variants"], Json::array({"contiguous", "in_batch"}));
  ASSERT_EQ(j["dispatch"]["results"].size(), 1u);
  EXPECT_EQ(j["dispatch"]["results"][0]["differing_points"], 0);

  r = samebits(
      "sweep matmul --check batch_invariance --set K=512 --set N=64 --set dtype=float32 "
      "--vary batch=1:12 --device cpu --report " +
      quoted(report));
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  j = Json::parse(read_text(report));
  std::int64_t violated = 0;
  for (const auto& c : j["cases"]) violated += c["verdict"] == "violated" ? 1 : 0;
  EXPECT_EQ(j["dispatch"]["results"][0]["differing_points"], violated);
}

// What --check refuses, before anything runs: an unknown kind, layouts beside batch invariance,
// and batch invariance with batches of one item.
TEST_F(CliTest, SweepCheckIsValidated) {
  const std::string base = "sweep sum --set N=64 --device cpu --report " + quoted(report) + " ";
  Result r = samebits(base + "--vary batch=1:3 --check padding_invariance");
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("accepted: determinism, layout_invariance, batch_invariance"),
            std::string::npos)
      << r.err;
  r = samebits(base + "--vary batch=1:3 --check batch_invariance --layouts padded:4");
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("drop --layouts"), std::string::npos) << r.err;
  r = samebits(base + "--vary rows=1:3 --check batch_invariance");
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("--vary batch=2:64, or --batch N"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(report));
}

TEST_F(CliTest, SweepOfAnUnknownImplementationListsTheAccepted) {
  const Result r = samebits(
      "sweep topk --set N=16 --vary k=1:2 --impl nope --device cpu "
      "--report " +
      quoted(report));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("--impl: op topk has no implementation \"nope\"; accepted: aten.topk"),
            std::string::npos)
      << explain(r);
}

TEST_F(CliTest, SweepOfALayoutTheOpDoesNotTakeNamesIt) {
  const Result r = samebits(
      "sweep rmsnorm --set D=8 --vary batch=1:2 --layouts padded:4 "
      "--device cpu --report " +
      quoted(report));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("op rmsnorm does not take layout \"padded:4\""), std::string::npos)
      << explain(r);
  EXPECT_FALSE(fs::exists(report));
}

}  // namespace
}  // namespace samebits
