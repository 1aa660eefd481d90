// The HTML report's drill-down: per check with violated or errored cases, the first of them with
// their params, first mismatching elements (values, bits, ULP) and the command that reruns each.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "reports/model/report.h"
#include "reports/render/check_headline.h"

namespace samebits {

// Cases shown per check; the rest are counted and left to the JSON report.
inline constexpr std::size_t kDrilldownCases = 50;

// The id of a check's drill-down anchor ("check-12", by its index in report.checks).
std::string check_anchor(std::size_t check_index);

// A <section> with one <details> per check in `order` (indices into report.checks) that has
// violated or errored cases; empty when none has.
std::string drilldown_html(const Report& report, const CaseIndex& index,
                           const std::vector<std::size_t>& order, const std::string& report_path);

// True when the check has a case worth drilling into (violated or errored).
bool has_drilldown(const CheckResult& check);

}  // namespace samebits
