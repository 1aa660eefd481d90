// The end of `run` and `sweep`: the JSON report written atomically (a failure leaves any earlier
// report whole) before the summary is printed, so the summary's exit code is the one returned.
#include "cli/report_output.h"

#include <fmt/format.h>

#include <exception>
#include <filesystem>

#include "contracts/contract_error.h"
#include "reports/outcome.h"
#include "reports/report_writer.h"

namespace samebits {

void check_report_target(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    throw ContractError(fmt::format(
        "--report {}: {}; give the path of a file (it is replaced whole when the run ends)", path,
        fs::is_directory(status) ? "is a folder"
                                 : "is not a regular file (a device, FIFO or socket)"));
  }
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && fs::exists(parent, ec) && !fs::is_directory(parent, ec)) {
    throw ContractError(fmt::format("--report {}: {} is not a folder", path, parent.string()));
  }
}

std::optional<std::string> write_report_file(Report& report, const std::string& path) {
  try {
    JsonReportWriter(path).write(report);
  } catch (const std::exception& e) {
    report.summary.exit_code = kExitInfrastructure;
    return std::string(e.what());
  }
  return std::nullopt;
}

void print_report_outcome(const std::string& path, const std::optional<std::string>& error) {
  if (error) {
    fmt::print(stderr, "samebits: the report was not written: {} (exit {})\n", *error,
               static_cast<int>(kExitInfrastructure));
  } else {
    fmt::print("report: {}\n", path);
  }
}

}  // namespace samebits
