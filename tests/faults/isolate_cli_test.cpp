// `samebits run --isolate` against each CPU fault planted in tests/contracts/planted_faults.json:
// the faulty case gets its verdict and reason, the cases after it run and hold, the report is whole
// and valid, and the exit code is 3 (a case could not run). Controls: without a fault the run
// passes; a fault without --isolate ends the run. Bad --case-timeout values: exit 2.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/faults/fault_fixture.h"

namespace samebits {
namespace {

class IsolateCliTest : public FaultTest {
 protected:
  // The faulty case has this verdict and its reason says each of `reason_has`.
  static void expect_case(const Json& rep, const std::string& fault, const std::string& verdict,
                          const std::vector<std::string>& reason_has) {
    const Json c = case_with_fault(rep, fault);
    ASSERT_FALSE(c.is_null()) << fault << " in " << rep["cases"].dump();
    EXPECT_EQ(c["verdict"], verdict) << c.dump();
    for (const auto& needle : reason_has) {
      EXPECT_NE(c.value("reason", "").find(needle), std::string::npos) << needle << "\n"
                                                                       << c.dump();
    }
  }
  // The isolated run of one fault beside a clean case and the "after" cases: exit 3, the fault's
  // verdict and reason, the rest held, the report whole and valid, the journal removed.
  void expect_survived(const std::string& fault, const std::string& verdict,
                       const std::vector<std::string>& reason_has, const std::string& extra = "") {
    const Result r = samebits(run_planted("cpu", "none|" + fault) + " --isolate" + extra);
    ASSERT_EQ(r.exit_code, 3) << explain(r);
    const Json rep = read_report();
    ASSERT_EQ(rep["cases"].size(), 4u) << "fault=none, fault=" << fault << ", after x2";
    expect_case(rep, fault, verdict, reason_has);
    expect_the_rest_held(rep, fault);
    EXPECT_EQ(rep["summary"]["exit_code"], 3);
    EXPECT_EQ(rep["summary"][verdict == "error" ? "errors" : verdict], 1) << rep["summary"].dump();
    EXPECT_EQ(rep["settings"]["isolate"]["children"], verdict == "error" ? 1 : 2);
    EXPECT_EQ(schema_errors(report), "");
    EXPECT_FALSE(fs::exists(report.string() + ".journal")) << "the journal has served";
  }
};

// Two crashes in one run (abort, then a null pointer written through): each case crashed with its
// last words, a fresh process after each, and the report holds the plan's cases in its order,
// the clean ones equal to an uninterrupted run's: a crash loses, repeats and changes no case.
TEST_F(IsolateCliTest, CrashesAreRecordedAndTheRunGoesOnUnchanged) {
  const std::string faults = "none|abort|segv";
  const Result plan = samebits(run_planted("cpu", faults) + " --dry-run");
  ASSERT_EQ(plan.exit_code, 0) << explain(plan);
  const Result r = samebits(run_planted("cpu", faults) + " --isolate");
  ASSERT_EQ(r.exit_code, 3) << explain(r);
  const Json rep = read_report();
  std::vector<std::string> ids;
  for (const auto& c : rep["cases"]) ids.push_back(c["id"]);
  EXPECT_EQ(ids, lines(plan.out));
  expect_case(rep, "abort", "crashed",
              {"its process was killed by SIGABRT", "planted fault: abort on cpu"});
  expect_case(rep, "segv", "crashed",
              {"its process was killed by SIGSEGV", "planted fault: segv on cpu"});
  EXPECT_EQ(rep["summary"]["crashed"], 2);
  EXPECT_EQ(rep["summary"]["exit_code"], 3);
  EXPECT_EQ(rep["settings"]["isolate"]["children"], 3);
  EXPECT_NE(r.out.find("2 crashed, 0 timed out; "), std::string::npos) << explain(r);
  EXPECT_NE(r.out.find("crashed: " + case_with_fault(rep, "segv")["id"].get<std::string>()),
            std::string::npos)
      << explain(r);
  EXPECT_EQ(schema_errors(report), "");
  EXPECT_FALSE(fs::exists(report.string() + ".journal")) << "the journal has served";

  const fs::path clean_path = dir / "clean.json";
  const Result clean = samebits(run_planted("cpu", "none", clean_path));
  ASSERT_EQ(clean.exit_code, 0) << explain(clean);
  const Json clean_report = read_report(clean_path);
  Json kept = Json::array(), uninterrupted = Json::array();
  for (const auto& c : rep["cases"]) {
    if (c["verdict"] == "holds") kept.push_back({c["id"], c["outputs"]});
  }
  for (const auto& c : clean_report["cases"]) uninterrupted.push_back({c["id"], c["outputs"]});
  EXPECT_EQ(uninterrupted.size(), 3u);
  EXPECT_EQ(kept, uninterrupted);
}

TEST_F(IsolateCliTest, HangIsTimedOutAndTheRunGoesOn) {
  expect_survived("hang", "timed_out",
                  {"ran past --case-timeout 2 s", "planted fault: hang on cpu"},
                  " --case-timeout 2");
  const Json c = case_with_fault(read_report(), "hang");
  EXPECT_GE(c["duration_ms"].get<double>(), 2000.0);
}

TEST_F(IsolateCliTest, HostOutOfMemoryIsAnErrorAndTheRunGoesOn) {
  // ASan (a sanitizer build) would end the process instead of throwing std::bad_alloc.
  setenv("ASAN_OPTIONS", "allocator_may_return_null=1", 0);
  expect_survived("alloc", "error", {"out of memory on the host"});
}

// The control: the same contract, no fault, passes.
TEST_F(IsolateCliTest, WithoutAFaultTheIsolatedRunPasses) {
  const Result r = samebits(run_planted("cpu", "none") + " --isolate --case-timeout 60");
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  const Json rep = read_report();
  ASSERT_EQ(rep["cases"].size(), 3u);
  for (const auto& c : rep["cases"]) EXPECT_EQ(c["verdict"], "holds") << c.dump();
  EXPECT_EQ(rep["settings"]["isolate"]["children"], 1);
  EXPECT_EQ(schema_errors(report), "");
}

// The control: without --isolate the fault ends the whole run, and no report is written.
TEST_F(IsolateCliTest, AbortWithoutIsolateEndsTheRun) {
  const Result r = samebits(run_planted("cpu", "none|abort"));
  EXPECT_NE(r.exit_code, 0) << explain(r);
  EXPECT_NE(r.exit_code, 3) << explain(r);
  EXPECT_FALSE(fs::exists(report)) << explain(r);
}

TEST_F(IsolateCliTest, BadCaseTimeoutsAreUsageErrors) {
  for (const std::string value : {"-1", "0", "abc", "1e9", "nan"}) {
    const Result r =
        samebits(run_planted("cpu", "none") + " --isolate --case-timeout='" + value + "'");
    EXPECT_EQ(r.exit_code, 2) << value << "\n" << explain(r);
    EXPECT_NE(r.err.find("--case-timeout"), std::string::npos) << value << "\n" << explain(r);
    EXPECT_NE(r.err.find("at most 604800"), std::string::npos) << value << "\n" << explain(r);
  }
  const Result empty = samebits(run_planted("cpu", "none") + " --isolate --case-timeout=");
  EXPECT_EQ(empty.exit_code, 2) << explain(empty);
  EXPECT_NE(empty.err.find("--case-timeout"), std::string::npos) << explain(empty);
  const Result r = samebits(run_planted("cpu", "none") + " --case-timeout 5");
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("--case-timeout needs --isolate"), std::string::npos) << explain(r);
}

}  // namespace
}  // namespace samebits
