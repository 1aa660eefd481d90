// The end of `run` and `sweep`: the JSON report written atomically (a failure leaves any earlier
// report whole), the path printed, or why not on stderr.
#include "cli/report_output.h"

#include <fmt/format.h>

#include <exception>

#include "reports/report_writer.h"

namespace samebits {

bool write_report_file(const Report& report, const std::string& path) {
  try {
    JsonReportWriter(path).write(report);
  } catch (const std::exception& e) {
    fmt::print(stderr, "samebits: the report was not written: {}\n", e.what());
    return false;
  }
  fmt::print("report: {}\n", path);
  return true;
}

}  // namespace samebits
