// The report as ordered, versioned JSON (the layout reports/report.schema.json describes).
// Key order is fixed so two reports diff line by line.
#pragma once

#include "contracts/json_document.h"
#include "reports/report.h"

namespace samebits {

Json report_to_json(const Report& report);
// One case on its own, as a journal line holds it: {"case": {...}, "kernel_names": [...]}.
Json case_record_to_json(const CaseResult& c);
// The report as text: top-level keys indented, and each element of a long array (a case, a check,
// a kernel name) or each part of the dispatch map on one line, so files stay small and diff by
// case.
std::string render_report(const Json& report);
Json diff_to_json(const DiffStats& diff);
Json comparison_to_json(const Comparison& comparison);
// A seed as a decimal string: readers that hold JSON numbers in doubles (jq, JavaScript) keep
// every bit of a string, not of a number past 2^53.
Json seed_to_json(std::uint64_t seed);
// The "dispatch" section of a sweep's report: op, impl, axis, variants, kernels_captured,
// signature_with_grid, points (params, in order), classes [{id, label, signature, observations,
// kernels}], dispatch [{variant, class_of_point [id or -1 per point], rules [{class, rule}]}],
// results [{variant, reference, points, differing_points, where_bits_differ, and when captured
// kernel_differing_points, same_kernel_differences, where_kernels_differ; relation}],
// result_classes [{id, label, groups, points, rule (when more than one)}], result_class_of_point,
// findings (reports/dispatch_text.h). A rule is {text, exact, matched, considered, points}.
Json dispatch_to_json(const DispatchMap& map);
Json kernel_to_json(const KernelLaunch& kernel);
Json kernels_to_json(const std::vector<KernelLaunch>& kernels);

}  // namespace samebits
