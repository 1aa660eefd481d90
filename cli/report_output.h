// The end of `run` and `sweep`: every output path checked before any case runs, then the JSON
// report written atomically before the summary, so the summary's exit code is the one returned.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reports/model/report.h"

namespace samebits {

// One file a command will write, by the option that names it ("--report", "--junit", ...).
struct OutputTarget {
  std::string option;
  std::string path;
};

// Before any case runs: throws ContractError (exit 2) naming the option and the path when the path
// is empty, names a folder, a device, a FIFO or anything else that is not a regular file, lies
// under something that is not a folder, or lies in a folder that cannot be made or written (a
// file is created there and removed again), or when two options name the same file. Makes the
// missing folders, as the write at the end would.
void check_output_targets(const std::vector<OutputTarget>& targets);
inline void check_report_target(const std::string& path) {
  check_output_targets({{"--report", path}});
}

// Writes the report; on failure returns why and sets the report's exit code to 3 (so the summary
// printed afterwards says so).
std::optional<std::string> write_report_file(Report& report, const std::string& path);

// After the summary: "report: PATH", or on stderr why the report was not written.
void print_report_outcome(const std::string& path, const std::optional<std::string>& error);

}  // namespace samebits
