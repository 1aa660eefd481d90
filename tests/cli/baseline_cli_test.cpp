// Baselines through the CLI: `baseline write`, `run --baseline` (verdict changes gate, drift is
// listed case by case and gates with --fail-on-drift, another platform is named), `report diff`.
#include <map>
#include <set>

#include "tests/cli/cli_fixture.h"

namespace samebits {
namespace {

// Determinism holds; the float64 reference is exact only for N = 1. Several sizes, so a new seed
// changes the outputs of some cases and not of others (N = 1 rows of one element still change:
// every case draws from its own seed).
const char* const kDrift = R"({"name": "drift", "op": "sum", "implementations": ["aten"],
  "sweep": {"rows": [3], "N": [1, 7, 300]},
  "checks": [{"kind": "determinism", "expect": {"aten": "holds"}},
             {"kind": "reference", "compare": "bitwise", "expect": {"aten": "unknown"}}]})";

// case id -> the digests of every output, both sides.
std::map<std::string, std::string> digests(const Json& report) {
  std::map<std::string, std::string> out;
  for (const auto& c : report["cases"]) {
    std::string d;
    for (const auto& o : c["outputs"]) {
      d += o["name"].get<std::string>() + ":" + o["baseline_sha256"].get<std::string>() + "/" +
           o["variant_sha256"].get<std::string>() + ";";
    }
    out[c["id"]] = d;
  }
  return out;
}

std::set<std::string> drifted(const Json& report) {
  std::set<std::string> out;
  for (const auto& d : report["baseline"]["drift"]) out.insert(d["id"].get<std::string>());
  return out;
}

// Each test starts from the contract's run (report.json, and first.json beside it) and its
// baseline (base.json). The run and the baseline write are made once, by the first test, in a
// folder of the suite's; the others copy them (the same contract, seed and platform give the same
// bits, which is what the tests below check).
class BaselineCli : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    if (shared().empty()) {
      const fs::path made = dir.string() + "_suite";
      fs::create_directories(made);
      contract = made / "drift.json";
      write_text(contract, kDrift);
      const fs::path run = made / "first.json";
      const Result r =
          samebits("run " + quoted(contract) + " --device cpu --report " + quoted(run));
      ASSERT_EQ(r.exit_code, 0) << explain(r);
      const Result w = samebits("baseline write " + quoted(run) + " -o " +
                                quoted(made / "base.json") + " --name here");
      ASSERT_EQ(w.exit_code, 0) << explain(w);
      shared() = made;
    }
    contract = shared() / "drift.json";
    fs::copy_file(shared() / "first.json", report);
    fs::copy_file(shared() / "first.json", dir / "first.json");
    baseline = dir / "base.json";
    fs::copy_file(shared() / "base.json", baseline);
    first = Json::parse(read_text(report));
  }
  static void TearDownTestSuite() {
    if (!shared().empty()) fs::remove_all(shared());
    shared().clear();
  }
  static fs::path& shared() {
    static fs::path folder;
    return folder;
  }
  Result run_against(const fs::path& b, const std::string& extra = "") {
    return samebits(run_args(contract) + " --baseline " + quoted(b) + " " + extra);
  }
  Json first;
  fs::path baseline;
};

TEST_F(BaselineCli, RecordsEveryCheckAndEveryCasesDigests) {
  const Json b = Json::parse(read_text(baseline));
  EXPECT_EQ(b["schema"], "samebits.baseline");
  EXPECT_EQ(b["platform"], first["settings"]["platform"]);
  EXPECT_EQ(b["checks"].size(), first["checks"].size());
  ASSERT_EQ(b["cases"].size(), first["cases"].size());
  for (const auto& c : first["cases"]) {
    const Json& rec = b["cases"][c["id"].get<std::string>()];
    EXPECT_EQ(rec["verdict"], c["verdict"]);
    EXPECT_EQ(rec["outputs"][0][1], c["outputs"][0]["baseline_sha256"]);
  }
}

TEST_F(BaselineCli, TheSameRunHasNoDrift) {
  const Result r = run_against(baseline, "--fail-on-drift");
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  const Json rep = Json::parse(read_text(report));
  EXPECT_TRUE(rep["baseline"]["same_platform"]);
  EXPECT_TRUE(drifted(rep).empty());
  EXPECT_TRUE(rep["baseline"]["verdict_changes"].empty());
  EXPECT_EQ(rep["baseline"]["cases_compared"], first["cases"].size());
}

// Another seed: drift in exactly the cases whose outputs changed, as the two reports' digests say.
TEST_F(BaselineCli, AnotherSeedDriftsExactlyWhereOutputsChanged) {
  Result r = run_against(baseline, "--seed 7");
  EXPECT_EQ(r.exit_code, 0) << "drift alone does not gate\n" << explain(r);
  const Json rep = Json::parse(read_text(report));
  const auto before = digests(first), after = digests(rep);
  std::set<std::string> changed;
  for (const auto& [id, d] : after) {
    if (before.at(id) != d) changed.insert(id);
  }
  ASSERT_FALSE(changed.empty()) << "precondition: seed 7 changes some outputs";
  EXPECT_EQ(drifted(rep), changed);
  r = run_against(baseline, "--seed 7 --fail-on-drift");
  EXPECT_EQ(r.exit_code, 1) << explain(r);
  EXPECT_NE(r.out.find("DRIFT"), std::string::npos) << r.out;
}

// One planted change in one recorded output: exactly that case drifts.
TEST_F(BaselineCli, APlantedChangeDriftsInExactlyThatCase) {
  Json b = Json::parse(read_text(baseline));
  const std::string id = first["cases"][2]["id"];
  std::string& sha = b["cases"][id]["outputs"][0][2].get_ref<std::string&>();
  sha[0] = sha[0] == '0' ? '1' : '0';
  write_text(baseline, b.dump());
  const Result r = run_against(baseline);
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  const Json rep = Json::parse(read_text(report));
  EXPECT_EQ(drifted(rep), std::set<std::string>{id});
  EXPECT_EQ(rep["baseline"]["drift"][0]["outputs"],
            Json::array({first["cases"][2]["outputs"][0]["name"]}));
}

// A check recorded with the other verdict: a verdict change, exit 1.
TEST_F(BaselineCli, AVerdictChangeGates) {
  Json b = Json::parse(read_text(baseline));
  b["checks"]["drift/determinism/aten"] = "violated";
  write_text(baseline, b.dump());
  const Result r = run_against(baseline);
  EXPECT_EQ(r.exit_code, 1) << explain(r);
  EXPECT_NE(r.out.find("CHANGED  drift/determinism/aten: violated -> holds"), std::string::npos)
      << r.out;
}

// Recorded elsewhere: said, with the field, and not a failure by itself.
TEST_F(BaselineCli, AnotherPlatformIsNamedNotFailed) {
  Json b = Json::parse(read_text(baseline));
  b["platform"]["torch"] = "2.10.0";
  write_text(baseline, b.dump());
  const Result r = run_against(baseline, "--fail-on-drift");
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_NE(r.out.find("recorded on another platform (torch: 2.10.0 there, "), std::string::npos)
      << r.out;
}

// A case whose bits vary from run to run (as cuDNN's fp16 padded decode does on the H100): a
// baseline written from several runs keeps every set of digests seen, and a run that matches any
// of them has not drifted. Here the second "run" is the first report with one digest planted.
TEST_F(BaselineCli, SeveralRunsRecordTheCasesThatVary) {
  Json second = first;
  const std::string id = first["cases"][1]["id"];
  std::string& sha = second["cases"][1]["outputs"][0]["variant_sha256"].get_ref<std::string&>();
  sha[0] = sha[0] == '0' ? '1' : '0';
  write_text(dir / "second.json", second.dump());

  // Negative control: the planted run alone as the baseline; this run drifts in that case only.
  const fs::path planted = dir / "planted.json";
  ASSERT_EQ(samebits("baseline write " + quoted(dir / "second.json") + " -o " + quoted(planted))
                .exit_code,
            0);
  Result r = run_against(planted, "--fail-on-drift");
  EXPECT_EQ(r.exit_code, 1) << explain(r);
  EXPECT_EQ(drifted(Json::parse(read_text(report))), std::set<std::string>{id});

  // Both runs: the case is listed as varying, and this run matches the set it also saw.
  const fs::path both = dir / "both.json";
  const Result w = samebits("baseline write " + quoted(dir / "second.json") + " " +
                            quoted(dir / "first.json") + " -o " + quoted(both));
  ASSERT_EQ(w.exit_code, 0) << explain(w);
  EXPECT_NE(w.out.find("1 of the cases gave other bits in another of the 2 runs"),
            std::string::npos)
      << w.out;
  EXPECT_NE(w.out.find("  " + id + "\n"), std::string::npos) << w.out;
  EXPECT_EQ(Json::parse(read_text(both))["cases"][id]["also_seen"].size(), 1u);
  r = run_against(both, "--fail-on-drift");
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  const Json rep = Json::parse(read_text(report));
  EXPECT_TRUE(drifted(rep).empty());
  EXPECT_EQ(rep["baseline"]["matched_also_seen"], Json::array({id}));
}

// A baseline records one platform: a report of another is refused, naming what differs.
TEST_F(BaselineCli, RunsOfAnotherPlatformAreRefused) {
  Json other = first;
  other["environment"]["torch"]["version"] = "2.10.0";
  write_text(dir / "other.json", other.dump());
  Result r = samebits("baseline write " + quoted(dir / "first.json") + " " +
                      quoted(dir / "other.json") + " -o " + quoted(dir / "b.json"));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("other.json: ran on another platform than the first report (torch: "),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir / "b.json"));
}

// A check that held in one run and was violated in another (as ATen's efficient attention
// backward's determinism on the H200, whose atomics sometimes agree) is recorded as varying: a
// later run is not compared on it, whichever way it goes. Negative control: the baseline of the
// violated run alone gates this run, where the check holds.
TEST_F(BaselineCli, ACheckSeenBothWaysIsRecordedAsVarying) {
  Json flipped = first;
  ASSERT_EQ(flipped["checks"][0]["check"], "determinism");
  flipped["checks"][0]["observed"] = "violated";
  write_text(dir / "flipped.json", flipped.dump());
  const fs::path both = dir / "both.json", violated = dir / "violated.json";
  const Result w = samebits("baseline write " + quoted(dir / "first.json") + " " +
                            quoted(dir / "flipped.json") + " -o " + quoted(both));
  ASSERT_EQ(w.exit_code, 0) << explain(w);
  EXPECT_NE(w.out.find("1 checks held in one run and were violated in another: recorded as "
                       "varying"),
            std::string::npos)
      << w.out;
  EXPECT_NE(w.out.find("  drift/determinism/aten\n"), std::string::npos) << w.out;
  const Json b = Json::parse(read_text(both));
  EXPECT_EQ(b["checks"]["drift/determinism/aten"], "varies");
  EXPECT_EQ(b["checks"]["drift/reference/aten"], first["checks"][1]["observed"]);
  EXPECT_EQ(b["schema_version"], "1.3.0");

  Result r = run_against(both);
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_NE(r.out.find("1 checks recorded as varying on both (seen both ways there)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  VARIES   drift/determinism/aten\n"), std::string::npos) << r.out;
  const Json rep = Json::parse(read_text(report));
  EXPECT_EQ(rep["baseline"]["checks_varying"], Json::array({"drift/determinism/aten"}));
  EXPECT_TRUE(rep["baseline"]["verdict_changes"].empty());

  ASSERT_EQ(samebits("baseline write " + quoted(dir / "flipped.json") + " -o " + quoted(violated))
                .exit_code,
            0);
  r = run_against(violated);
  EXPECT_EQ(r.exit_code, 1) << explain(r);
  EXPECT_NE(r.out.find("CHANGED  drift/determinism/aten: violated -> holds"), std::string::npos)
      << r.out;
}

// `baseline update`: a run of a subset (after a kernel change, say) replaces the digests of the
// cases it ran and keeps every other case's; a report of another platform is refused.
TEST_F(BaselineCli, UpdateRecordsASubsetRunAndKeepsTheRest) {
  const Result run = samebits(run_args(contract) + " --seed 7 --filter 'N=300'");
  ASSERT_EQ(run.exit_code, 0) << explain(run);
  fs::copy_file(report, dir / "subset.json");
  const Json subset = Json::parse(read_text(dir / "subset.json"));
  const auto old_digests = digests(first), new_digests = digests(subset);
  ASSERT_FALSE(new_digests.empty());
  const fs::path updated = dir / "updated.json";
  const Result r = samebits("baseline update " + quoted(baseline) + " " +
                            quoted(dir / "subset.json") + " -o " + quoted(updated));
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  const Json b = Json::parse(read_text(updated));
  ASSERT_EQ(b["cases"].size(), first["cases"].size());
  EXPECT_EQ(b["checks"].size(), first["checks"].size());
  EXPECT_EQ(b["name"], "here");
  int replaced = 0;
  for (const auto& c : first["cases"]) {
    const std::string id = c["id"];
    const std::string recorded = b["cases"][id]["outputs"][0][1];
    const bool ran = new_digests.count(id) > 0;
    const Json& source = ran ? subset : first;
    for (const auto& s : source["cases"]) {
      if (s["id"] == id) {
        EXPECT_EQ(recorded, s["outputs"][0]["baseline_sha256"]) << id;
      }
    }
    if (ran) {
      ++replaced;
      EXPECT_NE(old_digests.at(id), new_digests.at(id)) << id << ": the seed changed nothing";
      EXPECT_NE(r.out.find(id), std::string::npos) << id << " not listed:\n" << r.out;
    }
  }
  EXPECT_EQ(replaced, static_cast<int>(new_digests.size()));
  EXPECT_LT(replaced, static_cast<int>(first["cases"].size()));

  Json other = subset;
  other["environment"]["torch"]["version"] = "2.10.0";
  write_text(dir / "other.json", other.dump());
  const Result refused = samebits("baseline update " + quoted(baseline) + " " +
                                  quoted(dir / "other.json") + " -o " + quoted(dir / "o.json"));
  EXPECT_EQ(refused.exit_code, 2) << explain(refused);
  EXPECT_NE(refused.err.find("ran on another platform than the baseline (torch: "),
            std::string::npos)
      << refused.err;
  EXPECT_FALSE(fs::exists(dir / "o.json"));
}

// Baselines can be kept gzipped (reports/baselines/*.json.gz), and a .gz name writes one gzipped.
TEST_F(BaselineCli, AGzippedBaselineReadsTheSame) {
  ASSERT_EQ(std::system(("gzip -k '" + baseline.string() + "'").c_str()), 0);
  const Result r = run_against(fs::path(baseline.string() + ".gz"), "--fail-on-drift");
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_NE(r.out.find("0 drifted"), std::string::npos) << r.out;
  // Control: a .gz that is not gzip is refused with the file named.
  write_text(dir / "bad.json.gz", "not gzip");
  const Result bad = run_against(dir / "bad.json.gz");
  EXPECT_EQ(bad.exit_code, 2) << explain(bad);
  EXPECT_NE(bad.err.find("bad.json.gz"), std::string::npos) << bad.err;
  const Result w =
      samebits("baseline write " + quoted(report) + " -o " + quoted(dir / "b.json.gz"));
  EXPECT_EQ(w.exit_code, 0) << explain(w);
  const std::string bytes = read_text(dir / "b.json.gz");
  ASSERT_GE(bytes.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0x1f) << "gzip's magic bytes";
  EXPECT_EQ(static_cast<unsigned char>(bytes[1]), 0x8b);
  const Result again = run_against(dir / "b.json.gz", "--fail-on-drift");
  EXPECT_EQ(again.exit_code, 0) << explain(again);
}

TEST_F(BaselineCli, ReportDiffNamesVerdictAndDigestChanges) {
  // Before: seed 0. After: seed 7, and in the first report the reference check's verdict set by
  // hand to the opposite of the second's (whether float32 sums round like float64 ones depends on
  // the CPU: the test must not).
  ASSERT_EQ(samebits(run_args(contract) + " --seed 7").exit_code, 0);
  ASSERT_EQ(first["checks"][1]["check"], "reference");
  const Json after = Json::parse(read_text(report));
  ASSERT_EQ(after["checks"][1]["check"], "reference");
  Json before = first;
  before["checks"][1]["observed"] =
      after["checks"][1]["observed"] == "violated" ? "holds" : "violated";
  write_text(dir / "before.json", before.dump());
  const fs::path json = dir / "diff.json";
  const Result r = samebits("report diff " + quoted(dir / "before.json") + " " + quoted(report) +
                            " --json " + quoted(json));
  EXPECT_EQ(r.exit_code, 1) << explain(r);
  const Json d = Json::parse(read_text(json));
  ASSERT_EQ(d["verdict_changes"].size(), 1u);
  EXPECT_EQ(d["verdict_changes"][0]["check"], "drift/reference/aten");
  std::set<std::string> changed;
  const auto a = digests(first), b = digests(after);
  for (const auto& [id, v] : b) {
    if (a.at(id) != v) changed.insert(id);
  }
  ASSERT_FALSE(changed.empty()) << "precondition: another seed changes some digests";
  std::set<std::string> listed;
  for (const auto& x : d["drift"]) listed.insert(x["id"].get<std::string>());
  EXPECT_EQ(listed, changed);
  EXPECT_TRUE(d["varied"].empty());

  // Had the first report seen aten's determinism violated, aten's cases would vary there: the same
  // changes are listed as varying, and the diff exits 0 even with --fail-on-drift.
  Json flaky = first;
  ASSERT_EQ(flaky["checks"][0]["kind"], "determinism");
  flaky["checks"][0]["observed"] = "violated";
  write_text(dir / "flaky.json", flaky.dump());
  const Result v = samebits("report diff " + quoted(dir / "flaky.json") + " " + quoted(report) +
                            " --fail-on-drift --json " + quoted(json));
  const Json dv = Json::parse(read_text(json));
  EXPECT_TRUE(dv["drift"].empty()) << dv.dump();
  std::set<std::string> varied;
  for (const auto& x : dv["varied"]) varied.insert(x["id"].get<std::string>());
  EXPECT_EQ(varied, changed);
  EXPECT_NE(v.out.find("vary from run to run"), std::string::npos) << v.out;
  // The same report against itself: nothing changed, exit 0.
  const Result same = samebits("report diff " + quoted(report) + " " + quoted(report));
  EXPECT_EQ(same.exit_code, 0) << explain(same);
  EXPECT_NE(same.out.find("0 verdict changes"), std::string::npos) << same.out;
}

}  // namespace
}  // namespace samebits
