// The samebits CLI as a process, for the CLI suites: a folder per test holding a tiny contract,
// the binary run with arguments, its exit code and both streams captured.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/json_document.h"
#include "tests/support/text_files.h"

namespace samebits {

namespace fs = std::filesystem;

struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

using test_support::read_text;
using test_support::write_text;

inline std::size_t line_count(const fs::path& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// Lines of `text` that start with `prefix`.
inline std::size_t count_lines_starting(const std::string& text, const std::string& prefix) {
  std::size_t n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += line.rfind(prefix, 0) == 0 ? 1 : 0;
  return n;
}

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Two determinism cases and two reference cases of the built-in sum op on tiny CPU items.
inline const char* const kTiny = R"({
  "name": "tiny",
  "op": "sum",
  "implementations": ["aten"],
  "sweep": {"rows": [2], "N": [3, 5]},
  "checks": [
    {"kind": "determinism", "expect": {"aten": "holds"}},
    {"kind": "reference", "compare": "ulp", "expect": {"aten": "unknown"}}
  ]
})";

// 40 cases (20 lengths, two implementations) of a few tens of milliseconds each on the CPU: a
// run to stop (SIGTERM) or hold (SIGSTOP) while it runs. The test acts within a poll (20 ms) of
// the journal's first lines, a second or more before the run would end.
inline const char* const kSlow =
    R"({"name": "slow", "op": "sum", "implementations": ["aten", "samebits"],
  "sweep": {"rows": [16], "N": {"range": [20000, 20019]}, "dim": [1]},
  "checks": [{"kind": "batch_invariance", "sweep": {"batch": [8]},
              "expect": {"aten": "observed", "samebits": "holds"}}]})";

// Platforms a test states (SAMEBITS_PLATFORM_OVERRIDE), so that whether an embedded observation
// covers the machine is the test's premise, not the host's: one that no recording covers, and the
// one contracts/observed/xeon-2core.json records. CTest also runs the CLI suite under each.
inline const char* const kUncoveredPlatform =
    R"({"cpu": "samebits test CPU, recorded nowhere", "isa": "AVX2", "threads": "2"})";
inline const char* const kXeonPlatform =
    R"({"cpu": "Intel(R) Xeon(R) Processor", "isa": "AVX512", "threads": "2"})";

// A folder per test with the contract in it; runs the CLI with arguments appended.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::path(::testing::TempDir()) /
          (std::string("samebits_cli_") + info->name() + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    contract = dir / "tiny.json";
    write_text(contract, kTiny);
    report = dir / "report.json";
  }
  void TearDown() override { fs::remove_all(dir); }

  Result samebits(const std::string& args) const {
    const fs::path out = dir / "stdout.txt";
    const fs::path err = dir / "stderr.txt";
    const std::string command = platform_prefix() + "'" + SAMEBITS_CLI + "' " + args + " >'" +
                                out.string() + "' 2>'" + err.string() + "'";
    const int status = std::system(command.c_str());
    Result r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_text(out);
    r.err = read_text(err);
    fs::remove(out);
    fs::remove(err);
    return r;
  }
  // Starts `samebits ARGS` in the background, its streams to out.txt and err.txt in dir: its pid.
  pid_t start(const std::string& args) const {
    const std::string command = platform_prefix() + "exec '" + SAMEBITS_CLI + "' " + args + " >'" +
                                (dir / "out.txt").string() + "' 2>'" + (dir / "err.txt").string() +
                                "'";
    const pid_t child = ::fork();
    if (child == 0) {
      ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    return child;
  }
  // Waits until `journal` holds `lines` lines and err.txt shows `shown`, or `limit` has passed:
  // whether they did.
  bool await_journal(const fs::path& journal, std::size_t lines, const std::string& shown = "",
                     std::chrono::seconds limit = std::chrono::seconds(120)) const {
    const auto reached = [&] {
      return line_count(journal) >= lines &&
             read_text(dir / "err.txt").find(shown) != std::string::npos;
    };
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!reached() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return reached();
  }
  // Starts `samebits ARGS` (start) and sends it SIGTERM once `journal` holds `lines` lines and
  // err.txt shows `shown`, or after `limit`; its wait status.
  int terminated_run(const std::string& args, const fs::path& journal, std::size_t lines,
                     const std::string& shown = "",
                     std::chrono::seconds limit = std::chrono::seconds(120)) const {
    const pid_t child = start(args);
    await_journal(journal, lines, shown, limit);
    ::kill(child, SIGTERM);
    return wait_status(child);
  }
  static int wait_status(pid_t child) {
    int status = 0;
    ::waitpid(child, &status, 0);
    return status;
  }
  std::string quoted(const fs::path& p) const { return "'" + p.string() + "'"; }
  // `platform` (a JSON object of fingerprint fields) as the variable's assignment, or nothing:
  // the run then sees the host's platform, or the one CTest states for the whole suite.
  std::string platform_prefix() const {
    return platform.empty() ? std::string() : "SAMEBITS_PLATFORM_OVERRIDE='" + platform + "' ";
  }
  std::string run_args(const fs::path& contract_path) const {
    return "run " + quoted(contract_path) + " --device cpu --report " + quoted(report);
  }

  fs::path dir, contract, report;
  std::string platform;  // stated for every command of the test when not empty
};

inline std::string explain(const Result& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

}  // namespace samebits
