// Which expectation a case is judged against: the contract's promise; else the observation of the
// first recorded platform that covers this one; else none (a finding). And the nearest platform.
#include "harness/expectations.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "contracts/embedded_suite.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace expectations_test_file {}
using namespace expectations_test_file;
namespace expectations_test_file {

const Contract& contract() {
  static const Contract c = parse_contract(R"({"name": "c", "op": "sum",
    "implementations": ["aten", "samebits"],
    "checks": [{"kind": "determinism", "expect": {"aten": "observed", "samebits": "holds"}},
               {"kind": "reference", "expect": {"aten": "observed", "samebits": "holds"}}]})",
                                           "t/c.json");
  return c;
}

PlatformFingerprint cpu(const std::string& model, const std::string& isa) {
  PlatformFingerprint f;
  f.device = "cpu";
  f.cpu = model;
  f.isa = isa;
  f.threads = "2";
  f.torch = "2.11.0";
  return f;
}

Baseline recorded(const std::string& name, PlatformFingerprint p, Expectation determinism) {
  Baseline b;
  b.name = name;
  b.platform = std::move(p);
  b.checks["c/determinism/aten"] = determinism;
  return b;
}

TEST(Expectations, APromiseIsKeptWhateverIsRecorded) {
  const ExpectationResolver r({recorded("x", cpu("X", "AVX2"), Expectation::violated)},
                              cpu("X", "AVX2"));
  const auto e = r.resolve(contract(), contract().checks[0], "samebits", "cpu");
  EXPECT_EQ(e.expected, Expectation::holds);
  EXPECT_EQ(e.from, ExpectationSource::promise);
}

TEST(Expectations, TheCoveringPlatformsObservation) {
  const ExpectationResolver r({recorded("x", cpu("X", "AVX2"), Expectation::violated)},
                              cpu("X", "AVX2"));
  const auto e = r.resolve(contract(), contract().checks[0], "aten", "cpu");
  EXPECT_EQ(e.expected, Expectation::violated);
  EXPECT_EQ(e.from, ExpectationSource::observation);
  EXPECT_EQ(e.observed_on, "x");
  // Recorded, but no case of the check ran there: nothing was seen, nothing is expected.
  const auto none = r.resolve(contract(), contract().checks[1], "aten", "cpu");
  EXPECT_EQ(none.expected, Expectation::unknown);
  EXPECT_EQ(none.from, ExpectationSource::observation);
}

// A check the platform's file records as "varies" (seen both ways there) is expected nothing, and
// says why (varying), so the reports can tell it from a check with no record: reported, never
// gating. Controls: the same file recording "violated" expects a violation; a check it does not
// record (none of its cases ran there) expects nothing and is not marked varying.
TEST(Expectations, ACheckRecordedAsVaryingExpectsNothing) {
  const auto file = [](const std::string& outcome) {
    return parse_baseline(R"({"schema": "samebits.baseline", "schema_version": "1.3.0",
      "name": "x", "platform": {"device": "cpu", "cpu": "X", "isa": "AVX2", "threads": "2",
      "torch": "2.11.0"}, "checks": {"c/determinism/aten": ")" +
                              outcome + R"("}})",
                          "x.json");
  };
  const ExpectationResolver r({file("varies")}, cpu("X", "AVX2"));
  const auto e = r.resolve(contract(), contract().checks[0], "aten", "cpu");
  EXPECT_EQ(e.expected, Expectation::unknown);
  EXPECT_EQ(e.from, ExpectationSource::observation);
  EXPECT_EQ(e.observed_on, "x");
  EXPECT_TRUE(e.varying);
  const auto unrecorded = r.resolve(contract(), contract().checks[1], "aten", "cpu");
  EXPECT_EQ(unrecorded.expected, Expectation::unknown);
  EXPECT_FALSE(unrecorded.varying);
  const ExpectationResolver control({file("violated")}, cpu("X", "AVX2"));
  const auto violated = control.resolve(contract(), contract().checks[0], "aten", "cpu");
  EXPECT_EQ(violated.expected, Expectation::violated);
  EXPECT_FALSE(violated.varying);
}

// The recordings built into the binary (contracts/observed/*.json, embedded at build time): on an
// H200 (its fingerprint stated here, not detected) ATen's efficient attention backward's
// gradient_determinism is recorded as varying, its dQ atomics agreeing in some runs only; on the
// H100 (control) it is recorded violated, and on the H200 the flash backward's stays violated.
TEST(Expectations, TheEmbeddedH200RecordsTheEfficientBackwardAsVarying) {
  const auto attention = [] {
    for (const auto& file : embedded_contracts()) {
      if (file.name == "attention.json") return parse_contract(file.text, "embedded:" + file.name);
    }
    throw std::runtime_error("attention.json is not embedded");
  }();
  const auto check =
      std::find_if(attention.checks.begin(), attention.checks.end(),
                   [](const CheckDecl& c) { return c.name == "gradient_determinism"; });
  ASSERT_NE(check, attention.checks.end());
  const auto gpu = [](const std::string& name) {
    PlatformFingerprint f;
    f.device = "cuda";
    f.gpu = name;
    f.sm_count = "132";
    f.torch = "2.11.0";
    f.cuda = "13.0";
    f.cudnn = "91900";
    f.cublas = "13.1.0";
    return f;
  };
  const ExpectationResolver h200(embedded_baselines(), gpu("NVIDIA H200"));
  ASSERT_NE(h200.covering(), nullptr);
  EXPECT_EQ(h200.covering()->name, "h200");
  const auto efficient = h200.resolve(attention, *check, "aten.efficient", "cuda");
  EXPECT_EQ(efficient.expected, Expectation::unknown);
  EXPECT_TRUE(efficient.varying);
  const auto flash = h200.resolve(attention, *check, "aten.flash", "cuda");
  EXPECT_EQ(flash.expected, Expectation::violated);
  EXPECT_FALSE(flash.varying);
  const ExpectationResolver h100(embedded_baselines(), gpu("NVIDIA H100 80GB HBM3"));
  ASSERT_NE(h100.covering(), nullptr);
  EXPECT_EQ(h100.covering()->name, "h100");
  const auto on_h100 = h100.resolve(attention, *check, "aten.efficient", "cuda");
  EXPECT_EQ(on_h100.expected, Expectation::violated);
  EXPECT_FALSE(on_h100.varying);
}

TEST(Expectations, NoCoveringPlatformMeansAFinding) {
  const ExpectationResolver r({recorded("x", cpu("X", "AVX512"), Expectation::violated)},
                              cpu("X", "AVX2"));
  EXPECT_EQ(r.covering(), nullptr);
  const auto e = r.resolve(contract(), contract().checks[0], "aten", "cpu");
  EXPECT_EQ(e.from, ExpectationSource::none);
  EXPECT_EQ(e.expected, Expectation::unknown);
}

TEST(Expectations, TheFirstCoveringPlatformWins) {
  const ExpectationResolver r({recorded("mine", cpu("X", "AVX2"), Expectation::holds),
                               recorded("shipped", cpu("X", ""), Expectation::violated)},
                              cpu("X", "AVX2"));
  ASSERT_NE(r.covering(), nullptr);
  EXPECT_EQ(r.covering()->name, "mine");
  EXPECT_EQ(r.resolve(contract(), contract().checks[0], "aten", "cpu").expected,
            Expectation::holds);
}

TEST(Expectations, NearestIsTheSameDeviceWithFewestDifferences) {
  PlatformFingerprint gpu;
  gpu.device = "cuda";
  const ExpectationResolver r({recorded("gpu", gpu, Expectation::holds),
                               recorded("far", cpu("Y", "AVX512"), Expectation::holds),
                               recorded("near", cpu("Y", "AVX2"), Expectation::holds)},
                              cpu("X", "AVX2"));
  EXPECT_EQ(r.covering(), nullptr);
  ASSERT_NE(r.nearest(), nullptr);
  EXPECT_EQ(r.nearest()->name, "near");
}

// What the nearest platform saw, for a finding: its verdict, or that it records the check as
// "varies", or nothing (a check it has no record of; or a platform covers this one).
TEST(Expectations, TheNearestPlatformsOutcomeSaysWhenItVaries) {
  const ExpectationResolver varies({recorded("near", cpu("Y", "AVX2"), Expectation::unknown)},
                                   cpu("X", "AVX2"));
  EXPECT_EQ(varies.nearest_outcome("c/determinism/aten").outcome, Expectation::unknown);
  EXPECT_TRUE(varies.nearest_outcome("c/determinism/aten").varying);
  // Controls: a verdict recorded there; no record of the check; a covering platform.
  const ExpectationResolver holds({recorded("near", cpu("Y", "AVX2"), Expectation::holds)},
                                  cpu("X", "AVX2"));
  EXPECT_EQ(holds.nearest_outcome("c/determinism/aten").outcome, Expectation::holds);
  EXPECT_FALSE(holds.nearest_outcome("c/determinism/aten").varying);
  EXPECT_FALSE(varies.nearest_outcome("c/reference/aten").varying);
  EXPECT_EQ(varies.nearest_outcome("c/reference/aten").outcome, Expectation::unknown);
  const ExpectationResolver covered({recorded("mine", cpu("X", "AVX2"), Expectation::unknown)},
                                    cpu("X", "AVX2"));
  ASSERT_NE(covered.covering(), nullptr);
  EXPECT_FALSE(covered.nearest_outcome("c/determinism/aten").varying);
}

}  // namespace expectations_test_file
}  // namespace samebits
