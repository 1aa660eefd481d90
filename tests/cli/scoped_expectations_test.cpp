// Scoped expectations through the CLI: a broken promise fails everywhere; an observed
// implementation is a finding where no recorded platform covers the machine and gates where one
// does; a subset (--case, --filter, a shard) judges only what it ran. Each test that depends on
// which platform is recorded states its platform (SAMEBITS_PLATFORM_OVERRIDE).
#include <set>

#include "tests/cli/cli_fixture.h"

namespace samebits {
namespace {

// sum's float32 result against the float64 reference, bitwise: the "exact" generator's sums are
// exact in float32 on every machine; sums of random normal floats are (in practice) never all
// rounded the way the float64 sum is.
std::string reference_contract(const std::string& expectation) {
  return R"({"name": "scoped", "op": "sum", "implementations": ["aten"],
    "sweep": {"rows": [4], "N": [64, 128, 256], "generator": ["exact", "normal"]},
    "checks": [{"kind": "reference", "compare": "bitwise", "expect": {"aten": ")" +
         expectation + R"("}}]})";
}

class ScopedExpectations : public CliTest {
 protected:
  Json run_report(const std::string& extra, Result* result = nullptr) {
    const Result r = samebits(run_args(contract) + " " + extra);
    if (result) *result = r;
    return Json::parse(read_text(report));
  }
  // An observation file for this machine's platform (as its report names it), recording `outcome`
  // for the check.
  fs::path observation_here(const std::string& outcome, const std::string& version = "1.0.0") {
    write_text(contract, reference_contract("observed"));
    const Json r = run_report("");
    const fs::path file = dir / "here.json";
    Json b = {{"schema", "samebits.baseline"},
              {"schema_version", version},
              {"name", "here"},
              {"platform", r["settings"]["platform"]},
              {"checks", {{"scoped/reference/aten", outcome}}}};
    write_text(file, b.dump());
    return file;
  }
  static const Json& only_check(const Json& report) {
    EXPECT_EQ(report["checks"].size(), 1u);
    return report["checks"][0];
  }
};

// A promise holds on every machine: aten does not keep "holds" against the float64 sum, so the
// run fails here and would on any machine.
TEST_F(ScopedExpectations, ABrokenPromiseFails) {
  write_text(contract, reference_contract("holds"));
  Result r;
  const Json rep = run_report("", &r);
  EXPECT_EQ(r.exit_code, 1) << explain(r);
  EXPECT_EQ(only_check(rep)["outcome"], "unexpected_violation");
  EXPECT_EQ(only_check(rep)["expected_from"], "promise");
}

// The same behaviour, declared observed, on a platform no recording covers (stated, so that the
// host's own fingerprint cannot matter): a finding, exit 0, and the console says how to record
// this platform.
TEST_F(ScopedExpectations, AnUnscopedDifferenceIsAFinding) {
  platform = kUncoveredPlatform;
  write_text(contract, reference_contract("observed"));
  Result r;
  const Json rep = run_report("", &r);
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_EQ(only_check(rep)["outcome"], "finding");
  EXPECT_EQ(only_check(rep)["observed"], "violated");
  EXPECT_EQ(only_check(rep)["expected_from"], "none");
  EXPECT_NE(r.out.find("To record this platform: samebits baseline write"), std::string::npos)
      << r.out;
}

// On the platform contracts/observed/xeon-2core.json records, an observed check it has no entry
// for is informational, from that observation: nothing was seen there, so nothing is expected
// (what a 2-core Xeon CI machine reports for this contract).
TEST_F(ScopedExpectations, ARecordedPlatformWithoutTheCheckIsInformational) {
  platform = kXeonPlatform;
  write_text(contract, reference_contract("observed"));
  Result r;
  const Json rep = run_report("", &r);
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_EQ(only_check(rep)["outcome"], "informational");
  EXPECT_EQ(only_check(rep)["expected_from"], "observation");
  EXPECT_EQ(only_check(rep)["observed_on"], "xeon-2core");
  EXPECT_EQ(rep["settings"]["observed_platform"], "xeon-2core");
  EXPECT_EQ(r.out.find("To record this platform"), std::string::npos) << r.out;
}

// A shipped check the Xeon recording has ("sum/layout_invariance/aten") takes its expectation
// from it there, and from nothing on the uncovered platform, whatever the host is.
TEST_F(ScopedExpectations, AnEmbeddedObservationCoversOnlyItsPlatform) {
  const std::string args = "run --device cpu --filter 'sum/layout_invariance/aten/' --report " +
                           quoted(report);
  platform = kXeonPlatform;
  Result r = samebits(args);
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << explain(r);
  Json rep = Json::parse(read_text(report));
  ASSERT_EQ(rep["checks"].size(), 1u) << rep["checks"].dump();
  EXPECT_EQ(rep["checks"][0]["expected_from"], "observation");
  EXPECT_EQ(rep["checks"][0]["observed_on"], "xeon-2core");
  EXPECT_EQ(rep["checks"][0]["expected"], "violated");
  EXPECT_EQ(rep["environment"]["host"]["cpu"], "Intel(R) Xeon(R) Processor");
  EXPECT_EQ(rep["environment"]["platform_override"]["source"], "SAMEBITS_PLATFORM_OVERRIDE");
  EXPECT_NE(r.out.find("platform stated by SAMEBITS_PLATFORM_OVERRIDE"), std::string::npos)
      << r.out;

  platform = kUncoveredPlatform;
  r = samebits(args);
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  rep = Json::parse(read_text(report));
  EXPECT_EQ(rep["checks"][0]["expected_from"], "none");
  EXPECT_EQ(rep["checks"][0]["outcome"], "finding");
  EXPECT_TRUE(rep["settings"]["observed_platform"].is_null());
}

// A stated platform is checked before any case runs: an unknown field, a GPU field on the CPU,
// another device and malformed JSON each exit 2 naming the variable and what it accepts.
TEST_F(ScopedExpectations, AStatedPlatformIsValidated) {
  const struct {
    const char* stated;
    const char* says;
  } bad[] = {
      {R"({"cores": "2"})", "unknown field \"cores\""},
      {R"({"gpu": "NVIDIA H100 80GB HBM3"})", "a cpu run has no field \"gpu\"; accepted: cpu, isa"},
      {R"({"device": "cuda"})", "cannot move it to cuda"},
      {R"({"cpu": )", "SAMEBITS_PLATFORM_OVERRIDE:1:"},
  };
  for (const auto& b : bad) {
    platform = b.stated;
    const Result r = samebits(run_args(contract));
    EXPECT_EQ(r.exit_code, 2) << b.stated << "\n" << explain(r);
    EXPECT_NE(r.err.find("SAMEBITS_PLATFORM_OVERRIDE"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(b.says), std::string::npos) << b.stated << "\n" << r.err;
    EXPECT_FALSE(fs::exists(report)) << b.stated;
  }
}

// With a recording of this platform, the observation gates: met -> as expected; contradicted ->
// exit 1 (here: recorded "holds" and aten violates).
TEST_F(ScopedExpectations, ACoveringObservationGates) {
  const fs::path violated = observation_here("violated");
  Result r;
  Json rep = run_report("--observations " + quoted(violated), &r);
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_EQ(only_check(rep)["outcome"], "as_expected");
  EXPECT_EQ(only_check(rep)["expected_from"], "observation");
  EXPECT_EQ(only_check(rep)["observed_on"], "here");

  const fs::path holds = observation_here("holds");
  rep = run_report("--observations " + quoted(holds), &r);
  EXPECT_EQ(r.exit_code, 1) << explain(r);
  EXPECT_EQ(only_check(rep)["outcome"], "unexpected_violation");
}

// A check recorded as "varies" here (seen both ways: its outcome is chance on this platform)
// expects nothing: violated in the whole check or held in a subset, it is informational, exit 0,
// and the console says why. The negative control is ACoveringObservationGates ("holds": exit 1).
TEST_F(ScopedExpectations, ACheckRecordedAsVaryingNeverGates) {
  const fs::path varies = observation_here("varies", "1.3.0");
  for (const char* subset : {"", "--filter 'generator=exact' "}) {
    Result r;
    const Json rep = run_report(subset + std::string("--observations ") + quoted(varies), &r);
    EXPECT_EQ(r.exit_code, 0) << explain(r);
    const Json& check = only_check(rep);
    EXPECT_EQ(check["observed"], *subset ? "holds" : "violated");
    EXPECT_EQ(check["outcome"], "informational");
    EXPECT_EQ(check["expected"], "unknown");
    EXPECT_EQ(check["observed_on"], "here");
    EXPECT_EQ(check["recorded_varying"], true);
    EXPECT_NE(r.out.find("  info, recorded as varying on here\n"), std::string::npos) << r.out;
  }
}

// The check is recorded violated here, and its exact-generator cases hold: a --case, a --filter or
// a share made only of them is not judged ("not observed in this subset"), exit 0. Negative
// control: the whole check holding, against the same recording, is stale (exit 1).
TEST_F(ScopedExpectations, ASubsetJudgesOnlyWhatItRan) {
  const fs::path violated = observation_here("violated");
  const std::string obs = " --observations " + quoted(violated);
  const Json whole = run_report(obs);
  std::string holding;
  std::set<std::string> violated_ids;
  for (const auto& c : whole["cases"]) {
    if (c["verdict"] == "holds" && holding.empty()) holding = c["id"];
    if (c["verdict"] == "violated") violated_ids.insert(c["id"].get<std::string>());
  }
  ASSERT_FALSE(holding.empty()) << "precondition: a case of the check holds (generator=exact)";
  ASSERT_FALSE(violated_ids.empty()) << "precondition: a case of the check is violated";

  Result r;
  Json rep = run_report("--case '" + holding + "'" + obs, &r);
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_EQ(only_check(rep)["outcome"], "not_observed_in_subset");
  EXPECT_EQ(only_check(rep)["planned"], whole["checks"][0]["cases"]);

  rep = run_report("--filter 'generator=exact'" + obs, &r);
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_EQ(only_check(rep)["outcome"], "not_observed_in_subset");

  // Every share of the check exits 0, whichever cases it drew.
  for (int i = 0; i < 3; ++i) {
    rep = run_report("--shard " + std::to_string(i) + "/3" + obs, &r);
    EXPECT_EQ(r.exit_code, 0) << "share " << i << "\n" << explain(r);
  }

  // Negative control: the whole check, recorded violated, holding everywhere is stale (exit 1).
  write_text(contract, R"({"name": "scoped", "op": "sum", "implementations": ["aten"],
    "sweep": {"rows": [4], "N": [64, 128, 256], "generator": ["exact"]},
    "checks": [{"kind": "reference", "compare": "bitwise", "expect": {"aten": "observed"}}]})");
  rep = run_report(obs, &r);
  EXPECT_EQ(r.exit_code, 1) << explain(r);
  EXPECT_EQ(only_check(rep)["outcome"], "stale_expectation");
}

}  // namespace
}  // namespace samebits
