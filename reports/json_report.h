// The report as ordered, versioned JSON (the layout reports/report.schema.json describes).
// Key order is fixed so two reports diff line by line.
#pragma once

#include "contracts/json_document.h"
#include "reports/report.h"

namespace samebits {

Json report_to_json(const Report& report);
// The report as text: top-level keys indented, and each element of a long array (a case, a check,
// a kernel name) or each part of the dispatch map on one line, so files stay small and diff by
// case.
std::string render_report(const Json& report);
Json diff_to_json(const DiffStats& diff);
Json kernel_to_json(const KernelLaunch& kernel);
Json kernels_to_json(const std::vector<KernelLaunch>& kernels);

}  // namespace samebits
