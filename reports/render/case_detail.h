// One case's diff in the terminal (`samebits show`, and `run --case` for the case it reran): how
// many elements differ, the ULP histogram and the first mismatches with both values in hex.
#pragma once

#include <string>

#include "reports/model/report.h"

namespace samebits {

// Plain text, colour as ANSI escapes when `color`; ends with the case's rerun command.
std::string case_detail_text(const CaseResult& c, const std::string& report_path, bool color);

}  // namespace samebits
