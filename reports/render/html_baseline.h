// The HTML report's baseline section (`run --baseline`): what changed since the recorded run, the
// verdict changes that gate and the cases whose bits drifted, as the JSON report keeps them.
#pragma once

#include <string>

#include "common/json_document.h"

namespace samebits {

// Empty when `comparison` is not an object (the run had no --baseline).
std::string baseline_section_html(const Json& comparison);

}  // namespace samebits
