// SIGTERM to `samebits run --isolate`: the child stops after the case under way, or at once when
// that case hangs, and the partial report comes (exit 3); no child is left running.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "tests/faults/fault_fixture.h"

namespace samebits {
namespace {

// 6 cases of a few hundred milliseconds each on the CPU: long enough to stop half-way.
constexpr const char* kSlow =
    R"({"name": "slow", "op": "sum", "implementations": ["aten", "samebits"],
  "sweep": {"rows": [64], "N": {"range": [20000, 20002]}, "dim": [1]},
  "checks": [{"kind": "batch_invariance", "sweep": {"batch": [8]},
              "expect": {"aten": "observed", "samebits": "holds"}}]})";

// Processes whose command line holds `needle` (a test's own folder): children left behind.
int processes_naming(const std::string& needle) {
  int found = 0;
  DIR* proc = ::opendir("/proc");
  if (!proc) return 0;
  while (const dirent* e = ::readdir(proc)) {
    const std::string pid = e->d_name;
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in("/proc/" + pid + "/cmdline");
    const std::string cmdline((std::istreambuf_iterator<char>(in)), {});
    if (cmdline.find(needle) != std::string::npos &&
        cmdline.find("--isolated-child") != std::string::npos)
      ++found;
  }
  ::closedir(proc);
  return found;
}

class IsolateSignalsTest : public FaultTest {
 protected:
  // Starts `args` (streams to out.txt and err.txt), sends SIGTERM once the journal holds `lines`
  // lines and stderr shows `shown`, and waits at most `bound` for it to end; if it has not, kills
  // it (its children die with it) and says so in `ended`. Its wait status.
  int stopped_run(const std::string& args, std::size_t lines, const std::string& shown,
                  std::chrono::seconds bound, bool& ended) const {
    const std::string command = platform_prefix() + "exec '" + SAMEBITS_CLI + "' " + args + " >" +
                                quoted(dir / "out.txt") + " 2>" + quoted(dir / "err.txt");
    const pid_t child = ::fork();
    if (child == 0) {
      ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    const fs::path journal = report.string() + ".journal";
    auto deadline = std::chrono::steady_clock::now() + bound;
    while ((line_count(journal) < lines ||
            read_text(dir / "err.txt").find(shown) == std::string::npos) &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(child, SIGTERM);
    int status = 0;
    deadline = std::chrono::steady_clock::now() + bound;
    ended = false;
    while (!ended && std::chrono::steady_clock::now() < deadline) {
      ended = ::waitpid(child, &status, WNOHANG) == child;
      if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!ended) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
    }
    return status;
  }
  // Starts `args`, sends SIGTERM once the journal holds `lines` lines and its stderr shows `shown`;
  // returns its exit status.
  int terminated_run(const std::string& args, std::size_t lines,
                     const std::string& shown = "") const {
    return CliTest::terminated_run(args, report.string() + ".journal", lines, shown,
                                   std::chrono::seconds(60));
  }
};

TEST_F(IsolateSignalsTest, SigtermStopsTheChildWithAPartialReport) {
  const fs::path slow = dir / "slow.json";
  write_text(slow, kSlow);
  const std::string args =
      "run " + quoted(slow) + " --device cpu --isolate --report " + quoted(report);
  const int status = terminated_run(args, 3);  // the header and 2 cases
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 3) << read_text(dir / "err.txt");
  const Json partial = read_report();
  EXPECT_EQ(partial["settings"]["interrupted"]["signal"], "SIGTERM");
  EXPECT_GE(partial["cases"].size(), 2u);
  EXPECT_LT(partial["cases"].size(), 6u) << "the run must have stopped early";
  EXPECT_EQ(processes_naming(dir.string()), 0) << "a child outlived its parent";

  const fs::path journal = report.string() + ".journal";
  const Result resumed = samebits(args + " --resume " + quoted(journal));
  ASSERT_EQ(resumed.exit_code, 0) << explain(resumed);
  EXPECT_EQ(read_report()["cases"].size(), 6u);
}

// SIGTERM while a case hangs, with no --case-timeout or one far off: the child is ended at once
// (it once waited for the hang forever, and only a second SIGTERM ended the parent, with exit 143
// and no report), the hanging case is left unrun for --resume, and a fresh child writes the
// partial report of the cases before it.
TEST_F(IsolateSignalsTest, SigtermDuringAHangEndsItsChildAtOnce) {
  for (const std::string timeout : {"", " --case-timeout 600"}) {
    fs::remove(report);
    fs::remove(report.string() + ".journal");
    const auto t0 = std::chrono::steady_clock::now();
    bool ended = false;
    const int status = stopped_run(run_planted("cpu", "none|hang") + " --isolate" + timeout, 2,
                                   "planted fault: hang", std::chrono::seconds(60), ended);
    ASSERT_TRUE(ended) << timeout << ": still running a minute after SIGTERM\n"
                       << read_text(dir / "err.txt");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(50));
    ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
    EXPECT_EQ(WEXITSTATUS(status), 3) << read_text(dir / "err.txt");
    const Json partial = read_report();
    EXPECT_EQ(partial["settings"]["interrupted"]["signal"], "SIGTERM");
    EXPECT_TRUE(case_with_fault(partial, "hang").is_null()) << "the hanging case was not run";
    ASSERT_EQ(partial["cases"].size(), 1u) << partial["cases"].dump();
    EXPECT_EQ(partial["cases"][0]["params"]["fault"], "none");
    EXPECT_NE(read_text(dir / "err.txt").find("the case is left for --resume"), std::string::npos)
        << read_text(dir / "err.txt");
    EXPECT_EQ(schema_errors(report), "");
    EXPECT_EQ(processes_naming(dir.string()), 0) << "a child outlived its parent";
  }
}

}  // namespace
}  // namespace samebits
