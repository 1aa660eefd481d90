// SIGTERM to `samebits run --isolate`: the parent passes it on to its child, which stops after the
// case under way and writes the partial report (exit 3), and no child is left running; a child
// whose case hangs past --case-timeout is killed, and the partial report still comes.
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

// The child cannot stop (its case hangs): --case-timeout kills it, and one more child writes the
// partial report from the journal, with the hanging case timed out.
TEST_F(IsolateSignalsTest, SigtermDuringAHangStillGivesAPartialReport) {
  const int status = terminated_run(run_planted("cpu", "none|hang") + " --isolate --case-timeout 2",
                                    2, "planted fault: hang");
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 3) << read_text(dir / "err.txt");
  const Json partial = read_report();
  EXPECT_EQ(partial["settings"]["interrupted"]["signal"], "SIGTERM");
  const Json hang = case_with_fault(partial, "hang");
  ASSERT_FALSE(hang.is_null()) << partial["cases"].dump();
  EXPECT_EQ(hang["verdict"], "timed_out");
  EXPECT_EQ(partial["cases"].size(), 2u) << "no case starts after the signal";
  EXPECT_EQ(schema_errors(report), "");
  EXPECT_EQ(processes_naming(dir.string()), 0) << "a child outlived its parent";
}

}  // namespace
}  // namespace samebits
