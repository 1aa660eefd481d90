// The CUDA faults planted in tests/contracts/planted_faults.json, on a GPU: a kernel writing out of
// bounds (crashed, and without --isolate the run ends after it and names it), a kernel spinning
// forever (timed_out), an absurd at::empty (an out-of-memory error); the other cases hold. Skipped
// where no GPU is visible.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "tests/faults/fault_fixture.h"

namespace samebits {
namespace {

// Whether the driver sees a GPU, asked of nvidia-smi: this process only drives the CLI and reads
// its reports, so it loads neither Torch nor CUDA (linked with them, it crashed as each test ended
// on the H100, with no frame to show where).
bool gpu_visible() {
  static const bool visible = std::system("nvidia-smi -L >/dev/null 2>&1") == 0;
  return visible;
}

#define SAMEBITS_REQUIRE_CUDA() \
  if (!gpu_visible()) GTEST_SKIP() << "no CUDA GPU visible"

class IsolateGpuTest : public FaultTest {};

TEST_F(IsolateGpuTest, OutOfBoundsKernelIsCrashedAndTheRunGoesOn) {
  SAMEBITS_REQUIRE_CUDA();
  const Result r = samebits(run_planted("cuda", "none|oob") + " --isolate --case-timeout 120");
  ASSERT_EQ(r.exit_code, 3) << explain(r);
  const Json rep = read_report();
  ASSERT_EQ(rep["cases"].size(), 4u) << rep["cases"].dump();
  const Json c = case_with_fault(rep, "oob");
  ASSERT_FALSE(c.is_null());
  EXPECT_EQ(c["verdict"], "crashed") << c.dump();
  EXPECT_NE(c.value("reason", "").find("illegal memory access"), std::string::npos) << c.dump();
  expect_the_rest_held(rep, "oob");
  EXPECT_EQ(rep["settings"]["isolate"]["children"], 2) << "a fresh process after the break";
  EXPECT_EQ(schema_errors(report), "");
}

TEST_F(IsolateGpuTest, SpinningKernelIsTimedOutAndTheRunGoesOn) {
  SAMEBITS_REQUIRE_CUDA();
  const Result r = samebits(run_planted("cuda", "none|gpu_hang") + " --isolate --case-timeout 10");
  ASSERT_EQ(r.exit_code, 3) << explain(r);
  const Json rep = read_report();
  ASSERT_EQ(rep["cases"].size(), 4u) << rep["cases"].dump();
  const Json c = case_with_fault(rep, "gpu_hang");
  ASSERT_FALSE(c.is_null());
  EXPECT_EQ(c["verdict"], "timed_out") << c.dump();
  expect_the_rest_held(rep, "gpu_hang");
  EXPECT_EQ(schema_errors(report), "");
}

TEST_F(IsolateGpuTest, CudaOutOfMemoryIsAnErrorAndTheRunGoesOn) {
  SAMEBITS_REQUIRE_CUDA();
  const Result r = samebits(run_planted("cuda", "none|alloc") + " --isolate --case-timeout 120");
  ASSERT_EQ(r.exit_code, 3) << explain(r);
  const Json rep = read_report();
  ASSERT_EQ(rep["cases"].size(), 4u) << rep["cases"].dump();
  const Json c = case_with_fault(rep, "alloc");
  ASSERT_FALSE(c.is_null());
  EXPECT_EQ(c["verdict"], "error") << c.dump();
  EXPECT_NE(c.value("reason", "").find("out of memory"), std::string::npos) << c.dump();
  expect_the_rest_held(rep, "alloc");
  EXPECT_EQ(rep["settings"]["isolate"]["children"], 1) << "out of memory leaves the context usable";
}

// Without --isolate the illegal address ends the run after its case: exit 3, the report names it,
// and no later case ran (each would have failed on the broken context).
TEST_F(IsolateGpuTest, OutOfBoundsWithoutIsolateEndsTheRunAndNamesTheCase) {
  SAMEBITS_REQUIRE_CUDA();
  const Result r = samebits(run_planted("cuda", "none|oob"));
  ASSERT_EQ(r.exit_code, 3) << explain(r);
  const Json rep = read_report();
  const Json c = case_with_fault(rep, "oob");
  ASSERT_FALSE(c.is_null()) << rep["cases"].dump();
  EXPECT_EQ(c["verdict"], "crashed") << c.dump();
  EXPECT_EQ(rep["settings"]["context_broken"]["case"], c["id"]);
  EXPECT_EQ(rep["cases"].size(), 2u) << "no case after the break";
  EXPECT_NE(r.err.find("the CUDA context broke in case"), std::string::npos) << explain(r);
  EXPECT_EQ(schema_errors(report), "");
}

// Every planted fault in one isolated run on the GPU: each recorded, the run whole.
TEST_F(IsolateGpuTest, EveryPlantedFaultIsSurvived) {
  SAMEBITS_REQUIRE_CUDA();
  const Result r = samebits("run " + planted() + " --device cuda --isolate --case-timeout 10 " +
                            "--report " + quoted(report));
  ASSERT_EQ(r.exit_code, 3) << explain(r);
  const Json rep = read_report();
  const std::map<std::string, std::string> expected = {
      {"none", "holds"},     {"error", "error"}, {"abort", "crashed"}, {"segv", "crashed"},
      {"hang", "timed_out"}, {"alloc", "error"}, {"oob", "crashed"},   {"gpu_hang", "timed_out"}};
  for (const auto& [fault, verdict] : expected) {
    const Json c = case_with_fault(rep, fault);
    ASSERT_FALSE(c.is_null()) << fault;
    EXPECT_EQ(c["verdict"], verdict) << c.dump();
  }
  int after = 0;
  for (const auto& c : rep["cases"]) {
    if (c["check"] != "after") continue;
    ++after;
    EXPECT_EQ(c["verdict"], "holds") << c.dump();
  }
  EXPECT_EQ(after, 2);
  EXPECT_EQ(rep["cases"].size(), expected.size() + 2);
  EXPECT_EQ(schema_errors(report), "");
}

}  // namespace
}  // namespace samebits
