// The end of `run` and `sweep`: the JSON report written atomically (a failure leaves any earlier
// report whole), the path printed, or why not on stderr.
#pragma once

#include <string>

#include "reports/report.h"

namespace samebits {

// True once the report is at `path`; false (and a message on stderr) when it could not be written.
bool write_report_file(const Report& report, const std::string& path);

}  // namespace samebits
