// The HTML report's baseline section (`run --baseline`): what changed since the recorded run, the
// verdict changes that gate and the cases whose bits drifted, as the JSON report keeps them.
#pragma once

#include <string>

#include "reports/model/run_comparison.h"

namespace samebits {

std::string baseline_section_html(const RunComparison& comparison);

}  // namespace samebits
