// `samebits run` fails fast and loses no work: each file it reads or writes is checked before any
// case runs (exit 2), the exit code printed is the one returned, closed streams change nothing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli/cli_fixture.h"

namespace samebits {
namespace {

class PreflightCliTest : public CliTest {
 protected:
  // `samebits ARGS` with the shell redirections given (e.g. ">&- 2>&-"), from `cwd` if set: its
  // exit code, or -1 when it did not exit (a signal).
  int shell(const std::string& args, const std::string& redirections,
            const fs::path& cwd = {}) const {
    const std::string command = (cwd.empty() ? "" : "cd " + quoted(cwd) + " && ") +
                                platform_prefix() + "'" + SAMEBITS_CLI + "' " + args + " " +
                                redirections;
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  // The run refused before any case ran: exit 2, the message, no "N cases from" line.
  static void expect_refused(const Result& r, const std::string& message) {
    EXPECT_EQ(r.exit_code, 2) << explain(r);
    EXPECT_NE(r.err.find(message), std::string::npos) << message << "\n" << explain(r);
    EXPECT_EQ(r.err.find(" cases from "), std::string::npos) << "a case ran: " << explain(r);
  }
};

// A missing or truncated --baseline, a missing --resume or --observations: refused before the run
// (the baseline was once read after the whole suite had run, which then ended in exit 2).
TEST_F(PreflightCliTest, InputsAreReadBeforeAnyCaseRuns) {
  ASSERT_EQ(samebits(run_args(contract)).exit_code, 0);
  const fs::path baseline = dir / "baseline.json";
  const Result written = samebits("baseline write " + quoted(report) + " -o " + quoted(baseline));
  ASSERT_EQ(written.exit_code, 0) << explain(written);
  const std::string text = read_text(baseline);
  const fs::path truncated = dir / "truncated.json";
  write_text(truncated, text.substr(0, text.size() / 2));
  const Result control = samebits(run_args(contract) + " --baseline " + quoted(baseline));
  EXPECT_EQ(control.exit_code, 0) << "the whole baseline is accepted: " << explain(control);

  const fs::path missing = dir / "nonexistent.json";
  expect_refused(samebits(run_args(contract) + " --baseline " + quoted(missing)),
                 "--baseline: " + missing.string() + ": cannot open");
  expect_refused(samebits(run_args(contract) + " --baseline " + quoted(truncated)),
                 "--baseline: " + truncated.string() + ":");
  expect_refused(samebits(run_args(contract) + " --resume " + quoted(missing)),
                 "--resume " + missing.string() + ": no such file");
  expect_refused(samebits(run_args(contract) + " --observations " + quoted(missing)),
                 "--observations: " + missing.string());
}

// Each file the run writes, under a regular file (no folder can be made there, even as root), or
// empty, or two options naming one file: exit 2 naming the option and the path, before the run.
// Renderings once failed after the whole run (exit 3), a journal there was silently not kept.
TEST_F(PreflightCliTest, OutputsAreCheckedBeforeAnyCaseRuns) {
  // `run` with `option` naming `path` (and the test's report, unless the option is --report).
  const auto run_with = [&](const std::string& option, const std::string& path) {
    return samebits("run " + quoted(contract) + " --device cpu " +
                    (option == "--report" ? "" : "--report " + quoted(report) + " ") + option +
                    " " + path);
  };
  const fs::path under_file = contract / "out.x";
  for (const std::string option : {"--report", "--journal", "--html", "--markdown", "--junit"}) {
    expect_refused(
        run_with(option, quoted(under_file)),
        option + " " + under_file.string() + ": " + contract.string() + " is not a folder");
  }
  // The default journal, REPORT.journal, where a folder stands.
  fs::create_directories(report.string() + ".journal");
  expect_refused(samebits(run_args(contract)), "--report " + report.string() + ": its journal " +
                                                   report.string() + ".journal: is a folder");
  fs::remove(report.string() + ".journal");
  for (const std::string option : {"--report", "--junit", "--html", "--baseline"}) {
    const Result r = run_with(option, "''");
    EXPECT_EQ(r.exit_code, 2) << option << ": " << explain(r);
    EXPECT_NE(r.err.find(option), std::string::npos) << explain(r);
    EXPECT_NE(r.err.find("an empty path"), std::string::npos) << explain(r);
  }
  expect_refused(samebits(run_args(contract) + " --junit " + quoted(report)),
                 "--junit " + report.string() + ": the same file as --report");
  EXPECT_FALSE(fs::exists(report)) << "nothing was written";
  const Result control = samebits(run_args(contract) + " --junit " + quoted(dir / "new/j.xml"));
  EXPECT_EQ(control.exit_code, 0) << "a folder not there yet is made: " << explain(control);
  EXPECT_TRUE(fs::exists(dir / "new/j.xml"));
}

// Read-only folders are writable for root: these run only for other users.
TEST_F(PreflightCliTest, ReadOnlyFoldersAreRefusedBeforeRunning) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only folders";
  const fs::path locked = dir / "locked";
  fs::create_directories(locked);
  ASSERT_EQ(::chmod(locked.c_str(), 0555), 0);
  expect_refused(samebits(run_args(contract) + " --junit " + quoted(locked / "j.xml")),
                 "--junit " + (locked / "j.xml").string() + ": cannot write a file in");
  // The default report lands in the current folder.
  const int code = shell("run " + quoted(contract) + " --device cpu",
                         ">" + quoted(dir / "o.txt") + " 2>" + quoted(dir / "e.txt"), locked);
  const std::string err = read_text(dir / "e.txt");
  EXPECT_EQ(code, 2) << err;
  EXPECT_NE(err.find("--report samebits-report.json: cannot write a file in the current folder"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find(" cases from "), std::string::npos) << err;
  ::chmod(locked.c_str(), 0755);
}

// A rendering that cannot be written after all (its folder replaced by a file while the run ran):
// the summary says exit 3, as the process exits (the summary once said exit 0 and the process
// exited 3); the report holds every case, and the journal has served. The run is held (SIGSTOP)
// while the folder goes, so it is mid-run however slow the machine.
TEST_F(PreflightCliTest, ThePrintedExitCodeIsTheProcesss) {
  const fs::path slow = dir / "slow.json";
  write_text(slow, kSlow);
  const fs::path out = dir / "out";
  fs::create_directories(out);
  const pid_t child = start(run_args(slow) + " --junit " + quoted(out / "j.xml"));
  const fs::path journal = report.string() + ".journal";
  EXPECT_TRUE(await_journal(journal, 2, "", std::chrono::seconds(60)))
      << "still running when the folder went: " << read_text(dir / "err.txt");
  ::kill(child, SIGSTOP);
  fs::remove_all(out);
  write_text(out, "a file where the folder was");
  ::kill(child, SIGCONT);
  const int status = wait_status(child);
  const std::string stdout_text = read_text(dir / "out.txt");
  const std::string stderr_text = read_text(dir / "err.txt");
  ASSERT_TRUE(WIFEXITED(status)) << stderr_text;
  EXPECT_EQ(WEXITSTATUS(status), 3) << stdout_text << stderr_text;
  EXPECT_NE(stdout_text.find("; exit 3\n"), std::string::npos) << stdout_text;
  EXPECT_EQ(stdout_text.find("exit 0"), std::string::npos) << stdout_text;
  EXPECT_NE(stderr_text.find("--junit not written"), std::string::npos) << stderr_text;
  EXPECT_EQ(Json::parse(read_text(report))["cases"].size(), 40u);
  EXPECT_FALSE(fs::exists(journal)) << "the report holds every case: the journal has served";
}

// Closed standard streams (`>&-`): the run still runs, writes its report, removes its journal and
// exits 0 (both closed once ended in SIGABRT; stdout alone in exit 3 with the journal left).
TEST_F(PreflightCliTest, ARunWithClosedStreamsReportsAndExitsWithItsCode) {
  for (const std::string& redirections : {std::string(">&- 2>&-"), ">&- 2>" + quoted(dir / "e.txt"),
                                          ">" + quoted(dir / "o.txt") + " 2>&-"}) {
    fs::remove(report);
    EXPECT_EQ(shell(run_args(contract), redirections), 0) << redirections;
    ASSERT_TRUE(fs::exists(report)) << redirections;
    EXPECT_EQ(Json::parse(read_text(report))["cases"].size(), 4u) << redirections;
    EXPECT_FALSE(fs::exists(report.string() + ".journal")) << redirections;
  }
  // The control: a case that fails is still exit 1 with no streams.
  std::string text = kTiny;
  text.replace(text.find("\"holds\""), 7, "\"violated\"");
  write_text(contract, text);
  EXPECT_EQ(shell(run_args(contract), ">&- 2>&-"), 1);
}

// The README caps a contract at 16 MiB (a report at 1 GiB): a contract past it is refused by
// validate and run, naming the file and the limit; one just under it is accepted.
TEST_F(PreflightCliTest, AContractOverSixteenMebibytesIsRefused) {
  const auto padded = [&](std::size_t bytes) {
    std::string text = kTiny;
    text.insert(text.rfind('}'), std::string(bytes - text.size(), ' '));
    const fs::path path = dir / "padded.json";
    write_text(path, text);
    return path;
  };
  const fs::path big = padded((std::size_t{16} << 20) + 1);
  for (const std::string& command : {"validate " + quoted(big), run_args(big)}) {
    const Result r = samebits(command);
    EXPECT_EQ(r.exit_code, 2) << explain(r);
    EXPECT_NE(r.err.find(big.string() + ": 16777217 bytes, more than the 16 MiB (16777216 bytes)"),
              std::string::npos)
        << explain(r);
  }
  const Result r = samebits("validate " + quoted(padded(std::size_t{16} << 20)));
  EXPECT_EQ(r.exit_code, 0) << "16 MiB exactly is accepted: " << explain(r);
}

}  // namespace
}  // namespace samebits
