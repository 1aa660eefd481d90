// Small pieces the HTML report's sections share: an outcome's colour class and pill, and a JSON
// value (the environment, the platform) as nested key-value grids. All text is escaped here.
#pragma once

#include <string>

#include "common/json_document.h"
#include "reports/model/report.h"

namespace samebits {

// "o-bad" (fails the gate), "o-warn" (errored), "o-find" (finding), "o-ok" (as expected), else
// "o-quiet".
std::string outcome_css(Outcome outcome);

// <span class="pill o-...">label</span>
std::string outcome_pill(Outcome outcome);

// Objects as key-value grids (nested), arrays of scalars joined by commas, null as a dash.
std::string json_html(const Json& value);

}  // namespace samebits
