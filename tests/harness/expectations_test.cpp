// Which expectation a case is judged against: the contract's promise; else the observation of the
// first recorded platform that covers this one; else none (a finding). And the nearest platform.
#include "harness/expectations.h"

#include <gtest/gtest.h>

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

// A check the platform's file records as "varies" (seen both ways there) is expected nothing:
// reported, never gating. Control: the same file recording "violated" expects a violation.
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
  const ExpectationResolver control({file("violated")}, cpu("X", "AVX2"));
  EXPECT_EQ(control.resolve(contract(), contract().checks[0], "aten", "cpu").expected,
            Expectation::violated);
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

}  // namespace expectations_test_file
}  // namespace samebits
