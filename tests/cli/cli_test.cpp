// The samebits CLI as a process: exit codes (0 as expected, 1 a surprise, 2 usage), error places,
// --dry-run, --case reruns, and a report replaced whole or not at all (an earlier one survives).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "contracts/json_document.h"
#include "tests/support/text_files.h"

namespace samebits {
namespace {

namespace fs = std::filesystem;

struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

using test_support::read_text;
using test_support::write_text;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Two determinism cases and two reference cases of the built-in sum op on tiny CPU items.
const char* const kTiny = R"({
  "name": "tiny",
  "op": "sum",
  "implementations": ["aten"],
  "sweep": {"rows": [2], "N": [3, 5]},
  "checks": [
    {"kind": "determinism", "expect": {"aten": "holds"}},
    {"kind": "reference", "compare": "ulp", "expect": {"aten": "unknown"}}
  ]
})";

// A folder per test with the contract in it; runs the CLI with arguments appended.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::path(::testing::TempDir()) /
          (std::string("samebits_cli_") + info->name() + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    contract = dir / "tiny.json";
    write_text(contract, kTiny);
    report = dir / "report.json";
  }
  void TearDown() override { fs::remove_all(dir); }

  Result samebits(const std::string& args) const {
    const fs::path out = dir / "stdout.txt";
    const fs::path err = dir / "stderr.txt";
    const std::string command = std::string("'") + SAMEBITS_CLI + "' " + args + " >'" +
                                out.string() + "' 2>'" + err.string() + "'";
    const int status = std::system(command.c_str());
    Result r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_text(out);
    r.err = read_text(err);
    fs::remove(out);
    fs::remove(err);
    return r;
  }
  std::string quoted(const fs::path& p) const { return "'" + p.string() + "'"; }
  std::string run_args(const fs::path& contract_path) const {
    return "run " + quoted(contract_path) + " --device cpu --report " + quoted(report);
  }

  fs::path dir, contract, report;
};

std::string explain(const Result& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

TEST_F(CliTest, ValidateAcceptsAGoodContract) {
  const Result r = samebits("validate " + quoted(contract));
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_NE(r.out.find("ok: " + contract.string()), std::string::npos) << explain(r);
}

TEST_F(CliTest, MalformedContractGivesLineAndColumn) {
  // Line 3 is `  "implementations" ["aten"],`: the '[' where ':' belongs is column 21.
  const fs::path bad = dir / "bad.json";
  write_text(bad,
             "{\n  \"op\": \"sum\",\n  \"implementations\" [\"aten\"],\n  \"checks\": []\n}\n");
  const Result r = samebits("validate " + quoted(bad));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find(bad.string() + ":3:21: malformed JSON"), std::string::npos) << explain(r);
}

TEST_F(CliTest, UnknownOpGivesItsJsonPath) {
  const fs::path bad = dir / "bad.json";
  write_text(bad, R"({"op": "nosuchop", "implementations": ["aten"],
    "checks": [{"kind": "determinism", "expect": {"aten": "holds"}}]})");
  const Result r = samebits("validate " + quoted(bad));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find(bad.string() + ": /op: unknown op \"nosuchop\"; accepted: sum, mean"),
            std::string::npos)
      << explain(r);
}

TEST_F(CliTest, DryRunListsTheCaseIds) {
  const Result r = samebits(run_args(contract) + " --dry-run");
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_EQ(lines(r.out),
            (std::vector<std::string>{
                "tiny/determinism/aten/cpu/rows=2,N=3", "tiny/determinism/aten/cpu/rows=2,N=5",
                "tiny/reference/aten/cpu/rows=2,N=3", "tiny/reference/aten/cpu/rows=2,N=5"}))
      << explain(r);
  EXPECT_FALSE(fs::exists(report)) << "a dry run writes no report";
}

TEST_F(CliTest, RunAsExpectedExitsZero) {
  const Result r = samebits(run_args(contract));
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  const Json j = Json::parse(read_text(report));
  EXPECT_EQ(j["schema"], "samebits.report");
  EXPECT_EQ(j["summary"]["cases"], 4);
  EXPECT_EQ(j["summary"]["exit_code"], 0);
  EXPECT_EQ(j["checks"][0]["outcome"], "as_expected");
  EXPECT_EQ(j["checks"][1]["outcome"], "informational");
  EXPECT_EQ(j["contracts"][0]["source"], contract.string());
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"report.json", "tiny.json"})) << "no temporary files";
}

// A report path under a regular file (no folder can be made there, even as root): the run still
// finishes, says why on stderr, exits 3 (infrastructure), and prints no report path.
TEST_F(CliTest, RunWithAnUnwritableReportExitsThree) {
  const fs::path missing = contract / "report.json";
  const Result r =
      samebits("run " + quoted(contract) + " --device cpu --report " + quoted(missing));
  EXPECT_EQ(r.exit_code, 3) << explain(r);
  EXPECT_NE(r.err.find("the report was not written"), std::string::npos) << explain(r);
  EXPECT_EQ(r.out.find("report: "), std::string::npos) << explain(r);
  EXPECT_FALSE(fs::exists(missing));
}

TEST_F(CliTest, SweepWithAnUnwritableReportExitsThree) {
  const fs::path missing = contract / "report.json";
  const Result r =
      samebits("sweep sum --set rows=4 --vary N=5:6 --device cpu --report " + quoted(missing));
  EXPECT_EQ(r.exit_code, 3) << explain(r);
  EXPECT_NE(r.err.find("the report was not written"), std::string::npos) << explain(r);
  EXPECT_FALSE(fs::exists(missing));
}

TEST_F(CliTest, WrongExpectationExitsOne) {
  // Determinism holds on the CPU; expecting a violation makes a stale expectation.
  std::string text = kTiny;
  const std::string holds = R"("kind": "determinism", "expect": {"aten": "holds"})";
  text.replace(text.find(holds), holds.size(),
               R"("kind": "determinism", "expect": {"aten": "violated"})");
  const fs::path wrong = dir / "wrong.json";
  write_text(wrong, text);
  const Result r = samebits(run_args(wrong));
  EXPECT_EQ(r.exit_code, 1) << explain(r);
  const Json j = Json::parse(read_text(report));
  EXPECT_EQ(j["checks"][0]["outcome"], "stale_expectation");
  EXPECT_EQ(j["summary"]["exit_code"], 1);
}

TEST_F(CliTest, CaseRerunsExactlyOneCase) {
  ASSERT_EQ(samebits(run_args(contract)).exit_code, 0);
  const Json full = Json::parse(read_text(report));
  ASSERT_EQ(full["cases"].size(), 4u);
  const Json& chosen = full["cases"][1];
  const std::string id = chosen["id"].get<std::string>();
  EXPECT_EQ(id, "tiny/determinism/aten/cpu/rows=2,N=5");

  const Result r = samebits(run_args(contract) + " --case '" + id + "'");
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  const Json one = Json::parse(read_text(report));
  ASSERT_EQ(one["cases"].size(), 1u);
  const Json& again = one["cases"][0];
  EXPECT_EQ(again["id"], chosen["id"]);
  EXPECT_EQ(again["seed"], chosen["seed"]) << "the seed comes from the id, not the position";
  EXPECT_EQ(again["params"], chosen["params"]);
  ASSERT_EQ(again["outputs"].size(), chosen["outputs"].size());
  for (std::size_t o = 0; o < chosen["outputs"].size(); ++o) {
    EXPECT_EQ(again["outputs"][o]["baseline_sha256"], chosen["outputs"][o]["baseline_sha256"]);
    EXPECT_EQ(again["outputs"][o]["variant_sha256"], chosen["outputs"][o]["variant_sha256"]);
  }
  EXPECT_EQ(one["settings"]["case"], id);
}

TEST_F(CliTest, UnknownCaseExitsTwoAndKeepsTheReport) {
  write_text(report, "earlier report");
  const Result r = samebits(run_args(contract) + " --case 'tiny/determinism/aten/cpu/rows=2,N=4'");
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("no case has the id \"tiny/determinism/aten/cpu/rows=2,N=4\""),
            std::string::npos)
      << explain(r);
  EXPECT_NE(r.err.find("tiny/determinism/aten/cpu/rows=2,N=3"), std::string::npos)
      << "ids with the same prefix are suggested\n"
      << explain(r);
  EXPECT_EQ(read_text(report), "earlier report");
}

TEST_F(CliTest, MalformedContractKeepsTheReport) {
  write_text(report, "earlier report");
  const fs::path bad = dir / "bad.json";
  write_text(bad, "{\"op\": \"sum\",,}");
  const Result r = samebits(run_args(bad));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find(bad.string() + ":1:14: malformed JSON"), std::string::npos) << explain(r);
  EXPECT_EQ(read_text(report), "earlier report");
}

TEST_F(CliTest, FilterSelectingNothingExitsTwo) {
  write_text(report, "earlier report");
  const Result r = samebits(run_args(contract) + " --filter 'no-such-case'");
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_EQ(read_text(report), "earlier report");
}

TEST_F(CliTest, FilterSelectsMatchingIds) {
  const Result r = samebits(run_args(contract) + " --filter 'reference.*N=5' --dry-run");
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_EQ(lines(r.out), (std::vector<std::string>{"tiny/reference/aten/cpu/rows=2,N=5"}))
      << explain(r);
}

TEST_F(CliTest, ShippedContractsValidate) {
  const fs::path folder = fs::path(SAMEBITS_SOURCE_DIR) / "contracts";
  std::vector<std::string> expected;
  for (const auto& e : fs::directory_iterator(folder)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() == ".json" && name.find(".schema.") == std::string::npos) {
      expected.push_back(e.path().string());
    }
  }
  std::sort(expected.begin(), expected.end());
  ASSERT_FALSE(expected.empty());
  const Result r = samebits("validate " + quoted(folder));
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  std::vector<std::string> ok;
  for (const auto& line : lines(r.out)) {
    if (line.rfind("ok: ", 0) == 0) ok.push_back(line.substr(4, line.find(" (") - 4));
  }
  EXPECT_EQ(ok, expected) << explain(r);
}

TEST_F(CliTest, DefaultSuiteDryRunListsDistinctIds) {
  const Result r = samebits("run --device cpu --dry-run");
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  const auto ids = lines(r.out);
  EXPECT_GT(ids.size(), 100u);
  const std::set<std::string> distinct(ids.begin(), ids.end());
  EXPECT_EQ(distinct.size(), ids.size()) << "case ids must be unique";
  for (const auto& id : ids) EXPECT_NE(id.find("/cpu/"), std::string::npos) << id;
}

TEST_F(CliTest, UnknownDeviceIsAUsageError) {
  const Result r = samebits("run " + quoted(contract) + " --device tpu --dry-run");
  EXPECT_EQ(r.exit_code, 2) << explain(r);
}

}  // namespace
}  // namespace samebits

namespace samebits {
namespace {

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

}  // namespace
}  // namespace samebits
