// Scoped expectations through the CLI: a broken promise fails everywhere; an observed
// implementation is a finding where no recorded platform covers the machine and gates where one
// does; a subset (--case, --filter, a shard) judges only what it ran.
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
  fs::path observation_here(const std::string& outcome) {
    write_text(contract, reference_contract("observed"));
    const Json r = run_report("");
    const fs::path file = dir / "here.json";
    Json b = {{"schema", "samebits.baseline"},
              {"schema_version", "1.0.0"},
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

// The same behaviour, declared observed, on a platform no recording covers: a finding, exit 0,
// and the console says how to record this platform.
TEST_F(ScopedExpectations, AnUnscopedDifferenceIsAFinding) {
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
