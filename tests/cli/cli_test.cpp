// The samebits CLI as a process: exit codes (0 as expected, 1 a surprise, 2 usage), error places,
// --dry-run, --case reruns, and a report replaced whole or not at all (an earlier one survives).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "tests/cli/cli_fixture.h"

namespace samebits {
namespace {

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

// A report path under a regular file (no folder can be made there, even as root): refused before
// any case runs, as a usage error naming the file that is in the way.
TEST_F(CliTest, ReportUnderAFileIsRefusedBeforeRunning) {
  const fs::path missing = contract / "report.json";
  const Result r =
      samebits("run " + quoted(contract) + " --device cpu --report " + quoted(missing));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find(contract.string() + " is not a folder"), std::string::npos) << explain(r);
  EXPECT_EQ(r.out.find("cases:"), std::string::npos) << "no case ran: " << explain(r);
  EXPECT_FALSE(fs::exists(missing));
}

// A report target that is a folder or a FIFO (or, as root, a device such as /dev/full): refused
// before running, and left as it was (the atomic rename would have replaced it with a file).
TEST_F(CliTest, ReportOverAFolderOrFifoIsRefused) {
  const fs::path fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const fs::path& target : {dir, fifo}) {
    const Result r =
        samebits("run " + quoted(contract) + " --device cpu --report " + quoted(target));
    EXPECT_EQ(r.exit_code, 2) << explain(r);
    EXPECT_NE(r.err.find("--report " + target.string() + ": is "), std::string::npos) << explain(r);
  }
  EXPECT_TRUE(fs::is_fifo(fifo)) << "the FIFO must survive";
  EXPECT_TRUE(fs::is_regular_file(contract));
}

// A report whose name is over 255 bytes (ENAMETOOLONG, as root too) cannot be written: refused
// before any case runs (it once ran the whole suite and then exited 3), naming the option and the
// path, and leaving no file behind.
TEST_F(CliTest, AReportThatCannotBeWrittenIsRefusedBeforeRunning) {
  const fs::path too_long = dir / (std::string(300, 'r') + ".json");
  const Result r =
      samebits("run " + quoted(contract) + " --device cpu --report " + quoted(too_long));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("--report " + too_long.string() + ": cannot write a file in"),
            std::string::npos)
      << explain(r);
  EXPECT_EQ(r.err.find(" cases from "), std::string::npos) << "no case ran: " << explain(r);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"tiny.json"})) << "no file left behind";
}

// Shapes that would need absurd memory (2^40 elements, a batch of 2^40) are refused by validate
// and before anything is allocated, naming the point; the limit itself (2^32 elements: the
// determinism check's default batch of 4 items of 65536 x 16384) is not.
TEST_F(CliTest, AbsurdShapesAreRefusedBeforeRunning) {
  const auto sum_contract = [&](const std::string& sweep) {
    const fs::path path = dir / "huge.json";
    write_text(path, R"({"op": "sum", "implementations": ["aten"], "sweep": )" + sweep +
                         R"(, "checks": [{"kind": "determinism", "expect": {"aten": "holds"}}]})");
    return path;
  };
  struct Case {
    std::string sweep, label;
  };
  for (const Case& c : {Case{R"({"rows": [1048576], "N": [1048576]})", "rows=1048576,N=1048576"},
                        Case{R"({"rows": [1], "N": [4], "batch": [1099511627776]})",
                             "rows=1,N=4,batch=1099511627776"}}) {
    const fs::path path = sum_contract(c.sweep);
    for (const std::string& command : {"validate " + quoted(path), run_args(path)}) {
      const Result r = samebits(command);
      EXPECT_EQ(r.exit_code, 2) << explain(r);
      EXPECT_NE(r.err.find("impossible point " + c.label + " on cpu: one call would hold "),
                std::string::npos)
          << explain(r);
      EXPECT_NE(r.err.find("elements; the limit is 4294967296"), std::string::npos) << explain(r);
    }
  }
  const Result at_limit =
      samebits("validate " + quoted(sum_contract(R"({"rows": [65536], "N": [16384]})")));
  EXPECT_EQ(at_limit.exit_code, 0) << "2^32 elements are accepted: " << explain(at_limit);
}

// --filter is matched without backtracking: (a+)+b over ids of 30 or more repeated letters took
// std::regex minutes; here it selects nothing, at once. Back-references are refused by name.
TEST_F(CliTest, CatastrophicFilterEndsAtOnce) {
  const fs::path path = dir / "aaaa.json";
  std::string text = kTiny;
  text.replace(text.find("\"tiny\""), 6, "\"" + std::string(40, 'a') + "\"");
  write_text(path, text);
  const auto t0 = std::chrono::steady_clock::now();
  Result r = samebits(run_args(path) + " --dry-run --filter '(a+)+b'");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20)) << explain(r);
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("selects no case"), std::string::npos) << explain(r);
  r = samebits(run_args(path) + " --dry-run --filter '(a+)+/'");
  EXPECT_EQ(r.exit_code, 0) << "the control: the same pattern ending as the name does: "
                            << explain(r);
  r = samebits(run_args(path) + " --dry-run --filter '(a)\\1'");
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("back-references"), std::string::npos) << explain(r);
}

// --seed takes [0, 2^64 - 1]: -1 and 2^64 are refused (CLI11 once read them as 2^64 - 1).
TEST_F(CliTest, SeedOutOfRangeIsRefused) {
  for (const char* seed : {"-1", "18446744073709551616", "1e3", "0x10"}) {
    const Result r = samebits(run_args(contract) + " --dry-run --seed " + seed);
    EXPECT_EQ(r.exit_code, 2) << seed << ": " << explain(r);
    EXPECT_NE(r.err.find("--seed takes a decimal integer in [0, 18446744073709551615]"),
              std::string::npos)
        << explain(r);
  }
  const Result r = samebits(run_args(contract) + " --dry-run --seed 18446744073709551615");
  EXPECT_EQ(r.exit_code, 0) << "the largest seed is accepted: " << explain(r);
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

// OpenMP threads wait passively unless the caller chose (cli/omp_wait_policy.cpp): the report's env
// records the policy the run had, and libgomp saw it (GOMP_SPINCOUNT 0, not its 300000 default).
TEST_F(CliTest, OpenMpWaitsPassivelyUnlessTheCallerChose) {
  const std::string unset = "env -u OMP_WAIT_POLICY OMP_DISPLAY_ENV=VERBOSE '" +
                            std::string(SAMEBITS_CLI) + "' ";
  const auto run_with = [&](const std::string& prefix) {
    const std::string command = prefix + run_args(contract) + " >'" +
                                (dir / "out.txt").string() + "' 2>'" + (dir / "err.txt").string() +
                                "'";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return Json::parse(read_text(report))["environment"]["env"]["OMP_WAIT_POLICY"];
  };
  EXPECT_EQ(run_with(unset), "PASSIVE");
  EXPECT_NE(read_text(dir / "err.txt").find("GOMP_SPINCOUNT = '0'"), std::string::npos)
      << read_text(dir / "err.txt").substr(0, 2000);
  EXPECT_EQ(run_with("env OMP_WAIT_POLICY=ACTIVE OMP_DISPLAY_ENV=VERBOSE '" +
                     std::string(SAMEBITS_CLI) + "' "),
            "ACTIVE");
  EXPECT_EQ(read_text(dir / "err.txt").find("GOMP_SPINCOUNT = '0'"), std::string::npos)
      << "the control: a caller's ACTIVE is kept";
}

}  // namespace
}  // namespace samebits
