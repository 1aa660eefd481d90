// The renderings as CI asks for them: `samebits run --html --markdown --junit` gates and reports in
// one command, `samebits report render` draws the same files from a report already written.
#include "tests/cli/cli_fixture.h"

namespace samebits {
namespace {

// One check whose promise breaks (aten's float32 sums of 4096 random floats are not all rounded
// as the float64 sums are) beside one that holds: the renderings must carry the failure, and the
// exit code must be 1.
const char* const kRendered = R"({"name": "rendered", "op": "sum", "implementations": ["aten"],
  "sweep": {"rows": [4096], "N": [8]},
  "checks": [{"kind": "determinism", "expect": {"aten": "holds"}},
             {"kind": "reference", "compare": "bitwise", "expect": {"aten": "holds"}}]})";

class RenderCli : public CliTest {
 protected:
  std::string flags(const std::string& stem) const {
    return " --html " + quoted(dir / (stem + ".html")) + " --markdown " +
           quoted(dir / (stem + ".md")) + " --junit " + quoted(dir / (stem + ".xml"));
  }
};

TEST_F(RenderCli, RunWritesAllThreeBesideItsReport) {
  const Result r = samebits(run_args(contract) + flags("run"));
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  const std::string html = read_text(dir / "run.html");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u) << html.substr(0, 80);
  EXPECT_NE(html.find("tiny"), std::string::npos);
  // The drill-down's rerun commands name the report this run wrote.
  EXPECT_NE(read_text(dir / "run.xml").find("<testsuites"), std::string::npos);
  EXPECT_EQ(read_text(dir / "run.md").rfind("**samebits: exit 0", 0), 0u)
      << read_text(dir / "run.md");
}

TEST_F(RenderCli, ABrokenPromiseIsAFailureInEveryRendering) {
  write_text(contract, kRendered);
  const Result r = samebits(run_args(contract) + flags("run"));
  EXPECT_EQ(r.exit_code, 1) << explain(r);
  const std::string junit = read_text(dir / "run.xml");
  EXPECT_NE(junit.find("<failure"), std::string::npos) << junit;
  const auto failing = junit.find("name=\"reference[aten/cpu]\"");
  ASSERT_NE(failing, std::string::npos) << junit;
  EXPECT_NE(junit.find("<failure", failing), std::string::npos) << junit;
  EXPECT_EQ(junit.rfind("classname=\"samebits.rendered\"", failing),
            junit.rfind("<testcase", failing) + 10)
      << junit;
  const std::string md = read_text(dir / "run.md");
  EXPECT_EQ(md.rfind("**samebits: exit 1", 0), 0u) << md;
  EXPECT_NE(md.find("| rendered / reference | aten / cpu |"), std::string::npos) << md;
  const std::string html = read_text(dir / "run.html");
  EXPECT_NE(html.find(report.string()), std::string::npos)
      << "the rerun command should name the report the run wrote";
}

// `report render` of the run's report draws the same files as the run did, and exits with the
// report's own code.
TEST_F(RenderCli, ReportRenderDrawsWhatTheRunDrew) {
  write_text(contract, kRendered);
  ASSERT_EQ(samebits(run_args(contract) + flags("run")).exit_code, 1);
  const Result r = samebits("report render " + quoted(report) + flags("again"));
  EXPECT_EQ(r.exit_code, 1) << explain(r);
  EXPECT_EQ(read_text(dir / "again.html"), read_text(dir / "run.html"));
  EXPECT_EQ(read_text(dir / "again.md"), read_text(dir / "run.md"));
  EXPECT_EQ(read_text(dir / "again.xml"), read_text(dir / "run.xml"));
}

TEST_F(RenderCli, ReportRenderWithNothingToWriteIsAUsageError) {
  ASSERT_EQ(samebits(run_args(contract)).exit_code, 0);
  const Result r = samebits("report render " + quoted(report));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("--html, --markdown, --junit"), std::string::npos) << r.err;
}

TEST_F(RenderCli, ReportRenderOfAMissingReportNamesIt) {
  const Result r = samebits("report render " + quoted(dir / "nope.json") + flags("x"));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("nope.json"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "x.html"));
}

}  // namespace
}  // namespace samebits
