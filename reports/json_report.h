// The report as ordered, versioned JSON (the layout reports/report.schema.json describes).
// Key order is fixed so two reports diff line by line.
#pragma once

#include "contracts/json_document.h"
#include "reports/case_json.h"
#include "reports/report.h"

namespace samebits {

// Cases as reports/case_json.h writes them, their kernel launches and properties referring to the
// report-level tables of reports/case_tables.h ("kernel_names", "kernel_launches",
// "property_names", just before "cases").
Json report_to_json(const Report& report);
// One case on its own, as a journal line holds it: {"case": {...}, "kernel_names": [...],
// "kernel_launches": [...], "property_names": [...]}.
Json case_record_to_json(const CaseResult& c);
// The report as text: top-level keys indented, and each element of a long array (a case, a check,
// a kernel name) or each part of the dispatch map on one line, so files stay small and diff by
// case.
std::string render_report(const Json& report);
// The "dispatch" section of a sweep's report: op, impl, axis, variants, kernels_captured,
// signature_with_grid, points (params, in order), classes [{id, label, signature, observations,
// kernels}], dispatch [{variant, class_of_point [id or -1 per point], rules [{class, rule}]}],
// results [{variant, reference, points, differing_points, where_bits_differ, and when captured
// kernel_differing_points, same_kernel_differences, where_kernels_differ; relation}],
// result_classes [{id, label, groups, points, rule (when more than one)}], result_class_of_point,
// findings (reports/dispatch_text.h). A rule is {text, exact, matched, considered, points}.
Json dispatch_to_json(const DispatchMap& map);

}  // namespace samebits
