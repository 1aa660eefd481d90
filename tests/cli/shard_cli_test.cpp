// Shares of a run through the CLI: --shard I/N splits the cases by id, Slurm and Kubernetes job
// arrays pick the same shares, and `report merge` of every share equals the unsharded report.
#include <map>
#include <set>

#include "tests/cli/cli_fixture.h"

namespace samebits {
namespace {

const char* const kShares = R"({"name": "shares", "op": "sum", "implementations": ["aten"],
  "sweep": {"rows": [2, 3], "N": [1, 7, 300]},
  "checks": [{"kind": "determinism", "expect": {"aten": "holds"}},
             {"kind": "reference", "compare": "bitwise", "expect": {"aten": "unknown"}},
             {"kind": "batch_invariance", "expect": {"aten": "unknown"}}]})";

std::vector<std::string> ids(const Json& report) {
  std::vector<std::string> out;
  for (const auto& c : report["cases"]) out.push_back(c["id"]);
  return out;
}

// What a merge must reproduce: every check's verdict and outcome, every case's verdict and
// digests, in order.
std::vector<std::string> verdicts_and_digests(const Json& report) {
  std::vector<std::string> out;
  for (const auto& g : report["checks"]) {
    out.push_back(g["contract"].get<std::string>() + "/" + g["check"].get<std::string>() + "/" +
                  g["impl"].get<std::string>() + " " + g["observed"].get<std::string>() + " " +
                  g["outcome"].get<std::string>() + " " + std::to_string(g["cases"].get<int>()));
  }
  for (const auto& c : report["cases"]) {
    std::string line = c["id"].get<std::string>() + " " + c["verdict"].get<std::string>();
    for (const auto& o : c["outputs"]) {
      line += " " + o["baseline_sha256"].get<std::string>() + "/" +
              o["variant_sha256"].get<std::string>();
    }
    out.push_back(line);
  }
  return out;
}

class ShardCli : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    write_text(contract, kShares);
  }
  // The unsharded run, for the tests that compare with it.
  Json whole() {
    const Result r = samebits(run_args(contract));
    EXPECT_EQ(r.exit_code, 0) << explain(r);
    return Json::parse(read_text(report));
  }
  Json share(const std::string& how, const fs::path& out, const std::string& env = "") {
    const Result r = samebits_with_env(
        env, "run " + quoted(contract) + " --device cpu --report " + quoted(out) + " " + how);
    EXPECT_EQ(r.exit_code, 0) << explain(r);
    return Json::parse(read_text(out));
  }
  // The binary with variables set for this one command (through env, in a small script).
  Result samebits_with_env(const std::string& env, const std::string& args) {
    if (env.empty()) return samebits(args);
    const fs::path script = dir / "with_env.sh";
    write_text(script,
               "#!/bin/sh\nexec env " + env + " '" + std::string(SAMEBITS_CLI) + "' \"$@\"\n");
    fs::permissions(script, fs::perms::owner_all);
    const fs::path out = dir / "o.txt", err = dir / "e.txt";
    const int status = std::system(
        ("'" + script.string() + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'")
            .c_str());
    Result r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_text(out);
    r.err = read_text(err);
    return r;
  }
};

// Three shares: disjoint, together every case, each in plan order.
TEST_F(ShardCli, SharesPartitionTheCases) {
  std::multiset<std::string> seen;
  for (int i = 0; i < 3; ++i) {
    const Json part = share("--shard " + std::to_string(i) + "/3", dir / ("p" + std::to_string(i)));
    EXPECT_EQ(part["settings"]["shard"], std::to_string(i) + "/3");
    for (const auto& id : ids(part)) seen.insert(id);
  }
  const auto all = ids(whole());
  EXPECT_EQ(seen, std::multiset<std::string>(all.begin(), all.end()));
}

TEST_F(ShardCli, MergeOfEveryShareEqualsTheUnshardedRun) {
  std::string parts;
  for (int i = 0; i < 4; ++i) {
    const fs::path p = dir / ("part" + std::to_string(i) + ".json");
    share("--shard " + std::to_string(i) + "/4", p);
    parts += " " + quoted(p);
  }
  const fs::path merged = dir / "merged.json";
  const Result r = samebits("report merge" + parts + " -o " + quoted(merged));
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  const Json m = Json::parse(read_text(merged));
  const Json unsharded = whole();
  EXPECT_EQ(verdicts_and_digests(m), verdicts_and_digests(unsharded));
  EXPECT_EQ(m["summary"]["cases"], unsharded["summary"]["cases"]);
  // Negative control: leaving a share out is said, and the report differs.
  const fs::path partial = dir / "partial.json";
  const Result missing = samebits("report merge " + quoted(dir / "part0.json") + " " +
                                  quoted(dir / "part1.json") + " -o " + quoted(partial));
  EXPECT_NE(missing.out.find("are in none of these reports"), std::string::npos) << missing.out;
  EXPECT_NE(verdicts_and_digests(Json::parse(read_text(partial))), verdicts_and_digests(unsharded));
}

// The merge orders and counts by the plan the shares record: shares of a filtered run merge into
// the filtered run though the contract file is gone, and shares of two filters are refused.
TEST_F(ShardCli, MergeReadsThePlanFromTheShares) {
  const fs::path a = dir / "fa.json", b = dir / "fb.json", other = dir / "fo.json";
  share("--filter rows=3 --shard 0/2", a);
  const Json second = share("--filter rows=3 --shard 1/2", b);
  share("--filter rows=2 --shard 1/2", other);
  const fs::path filtered = dir / "filtered.json";
  share("--filter rows=3", filtered);
  EXPECT_EQ(second["plan"], Json::parse(read_text(filtered))["plan"]);
  fs::remove(contract);  // nothing to plan from but the shares themselves
  const fs::path merged = dir / "fm.json";
  const Result r =
      samebits("report merge " + quoted(a) + " " + quoted(b) + " -o " + quoted(merged));
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_EQ(verdicts_and_digests(Json::parse(read_text(merged))),
            verdicts_and_digests(Json::parse(read_text(filtered))));
  EXPECT_EQ(r.out.find("are in none of these reports"), std::string::npos) << r.out;
  // Negative control: a share of another filter is another plan.
  const Result mixed =
      samebits("report merge " + quoted(a) + " " + quoted(other) + " -o " + quoted(dir / "x.json"));
  EXPECT_EQ(mixed.exit_code, 2) << explain(mixed);
  EXPECT_NE(mixed.err.find("another plan"), std::string::npos) << mixed.err;
}

TEST_F(ShardCli, OverlappingSharesAreRefused) {
  const fs::path a = dir / "a.json", b = dir / "b.json";
  share("--shard 0/2", a);
  share("--shard 0/2", b);
  const Result r =
      samebits("report merge " + quoted(a) + " " + quoted(b) + " -o " + quoted(dir / "m.json"));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("is in more than one of the reports"), std::string::npos) << r.err;
}

// Job arrays pick the same share as the flag: Slurm by offset from the array's first id,
// Kubernetes by completion index.
TEST_F(ShardCli, JobArraysPickTheSameShareAsTheFlag) {
  const auto flag = ids(share("--shard 1/3", dir / "flag.json"));
  const auto slurm = ids(share("", dir / "slurm.json",
                               "SLURM_ARRAY_TASK_ID=6 SLURM_ARRAY_TASK_MIN=5 "
                               "SLURM_ARRAY_TASK_COUNT=3"));
  const auto k8s = ids(share("", dir / "k8s.json", "JOB_COMPLETION_INDEX=1 JOB_COMPLETIONS=3"));
  EXPECT_EQ(slurm, flag);
  EXPECT_EQ(k8s, flag);
  EXPECT_NE(ids(share("--shard 0/3", dir / "zero.json")), flag);
}

TEST_F(ShardCli, ABadShardNamesTheFlagAndTheForm) {
  for (const std::string bad : {"3/3", "1", "a/b", "0/0", "-1/2"}) {
    const Result r = samebits(run_args(contract) + " --shard " + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << explain(r);
    EXPECT_NE(r.err.find("--shard: \"" + bad + "\" is not a shard; expected I/N"),
              std::string::npos)
        << r.err;
  }
  const Result r =
      samebits_with_env("JOB_COMPLETION_INDEX=4 JOB_COMPLETIONS=3", run_args(contract));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("JOB_COMPLETION_INDEX/JOB_COMPLETIONS: \"4/3\""), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace samebits
