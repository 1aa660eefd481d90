// The end of `run` and `sweep`: the JSON report written atomically (a failure leaves any earlier
// report whole) before the summary is printed, so the summary's exit code is the one returned.
#pragma once

#include <optional>
#include <string>

#include "reports/report.h"

namespace samebits {

// Before any case runs: throws ContractError (exit 2) when `path` names a folder, a device, a
// FIFO or anything else that is not a regular file, so no run ends unable to write its report.
void check_report_target(const std::string& path);

// Writes the report; on failure returns why and sets the report's exit code to 3 (so the summary
// printed afterwards says so).
std::optional<std::string> write_report_file(Report& report, const std::string& path);

// After the summary: "report: PATH", or on stderr why the report was not written.
void print_report_outcome(const std::string& path, const std::optional<std::string>& error);

}  // namespace samebits
