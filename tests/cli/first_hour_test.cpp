// What a new user meets in the first hour, each once a friction: --version, --help with the exit
// codes and where reports go, `list` with every op's axes and defaults, anchored filters, seeds.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/cli/cli_fixture.h"

namespace samebits {
namespace {

TEST_F(CliTest, VersionPrintsTheVersion) {
  const Result r = samebits("--version");
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_EQ(r.out.rfind("samebits 0.1.0 (commit ", 0), 0u) << explain(r);
  EXPECT_NE(r.out.find("torch 2.11.0"), std::string::npos) << explain(r);
}

TEST_F(CliTest, HelpNamesTheExitCodesAndWhereReportsGo) {
  const Result r = samebits("--help");
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  for (const char* expected :
       {"Exit codes:", "  0  every check's outcome as expected", "  1  an unexpected outcome",
        "  2  usage or contract error", "  3  infrastructure error", "samebits-report.json",
        "samebits-sweep.json.gz", "samebits run REPORT --case ID"}) {
    EXPECT_NE(r.out.find(expected), std::string::npos) << expected << "\n" << explain(r);
  }
}

TEST_F(CliTest, RunHelpNamesTheDefaultReport) {
  const Result r = samebits("run --help");
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_NE(r.out.find("default: samebits-report.json here"), std::string::npos) << explain(r);
}

// The line of one axis under an op in `samebits list`: name, type, default, meaning.
std::string axis_line(const std::string& list, const std::string& op, const std::string& axis) {
  const auto at = list.find("\n  " + op + ": ");
  if (at == std::string::npos) return "";
  const auto axes = list.find("    axes (name, type, default, meaning):\n", at);
  const auto line = list.find("      " + axis + " ", axes);
  if (axes == std::string::npos || line == std::string::npos) return "";
  return list.substr(line, list.find('\n', line) - line);
}

TEST_F(CliTest, ListShowsEveryOpsAxesAndDefaults) {
  const Result r = samebits("list");
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_NE(axis_line(r.out, "sum", "rows").find("integer   64"), std::string::npos)
      << axis_line(r.out, "sum", "rows");
  EXPECT_NE(axis_line(r.out, "sum", "N").find("required"), std::string::npos);
  EXPECT_NE(axis_line(r.out, "topk", "k").find("required"), std::string::npos);
  EXPECT_NE(axis_line(r.out, "sdpa", "head_dim").find("128"), std::string::npos);
  EXPECT_NE(axis_line(r.out, "sum", "dtype").find("bfloat16"), std::string::npos)
      << "the accepted dtypes";
  EXPECT_NE(axis_line(r.out, "rmsnorm", "eps").find("number"), std::string::npos);
  // The check kinds' own axes, with their defaults.
  const auto kinds = r.out.find("\ncheck kinds");
  ASSERT_NE(kinds, std::string::npos) << explain(r);
  const auto batch = r.out.find("batch_invariance: ", kinds);
  ASSERT_NE(batch, std::string::npos);
  const std::string batch_axis = r.out.substr(r.out.find("      batch ", batch), 40);
  EXPECT_NE(batch_axis.find("integer   8"), std::string::npos) << batch_axis;
}

TEST_F(CliTest, FilterMatchesWholePartsOfTheId) {
  const Result softmax = samebits("run --device cpu --dry-run --filter 'softmax/'");
  ASSERT_EQ(softmax.exit_code, 0) << explain(softmax);
  const auto ids = lines(softmax.out);
  ASSERT_FALSE(ids.empty());
  for (const auto& id : ids) EXPECT_EQ(id.rfind("softmax/", 0), 0u) << id;
  const Result check = samebits("run --device cpu --dry-run --filter 'batch_invariance/aten/'");
  ASSERT_EQ(check.exit_code, 0) << explain(check);
  for (const auto& id : lines(check.out))
    EXPECT_NE(id.find("/batch_invariance/aten/cpu/"), std::string::npos) << id;
  const Result axis = samebits("run --device cpu --dry-run --filter 'dtype=bfloat16'");
  ASSERT_EQ(axis.exit_code, 0) << explain(axis);
  for (const auto& id : lines(axis.out)) EXPECT_NE(id.find("dtype=bfloat16"), std::string::npos);
  EXPECT_EQ(samebits("run --device cpu --dry-run --filter 'oftmax/'").exit_code, 2)
      << "a match must start at a part of the id";
}

TEST_F(CliTest, HeaderCountsTheContractsSelected) {
  const fs::path other = dir / "other.json";
  std::string text = kTiny;
  text.replace(text.find("\"tiny\""), 6, "\"other\"");
  write_text(other, text);
  const Result r = samebits("run " + quoted(contract) + " " + quoted(other) +
                            " --device cpu --filter 'other/' --report " + quoted(report));
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_NE(r.err.find("4 cases from 1 of 2 contracts on cpu"), std::string::npos) << explain(r);
}

// Seeds past 2^53 travel as decimal strings, which every JSON reader keeps exactly.
TEST_F(CliTest, SeedsAreWrittenExactly) {
  const Result r = samebits(run_args(contract) + " --seed 18446744073709551615");
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  const Json j = Json::parse(read_text(report));
  EXPECT_EQ(j["settings"]["seed"], "18446744073709551615");
  for (const auto& c : j["cases"]) {
    ASSERT_TRUE(c["seed"].is_string()) << c["id"];
    EXPECT_EQ(std::to_string(std::stoull(c["seed"].get<std::string>())), c["seed"]);
  }
}

}  // namespace
}  // namespace samebits
