// The samebits CLI as a process, for the CLI suites: a folder per test holding a tiny contract,
// the binary run with arguments, its exit code and both streams captured.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "contracts/json_document.h"
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
    const std::string command = std::string("'") + SAMEBITS_CLI + "' " + args + " >'" +
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
  std::string quoted(const fs::path& p) const { return "'" + p.string() + "'"; }
  std::string run_args(const fs::path& contract_path) const {
    return "run " + quoted(contract_path) + " --device cpu --report " + quoted(report);
  }

  fs::path dir, contract, report;
};

inline std::string explain(const Result& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

}  // namespace samebits
