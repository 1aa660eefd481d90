// The report as ordered, versioned JSON (the layout reports/report.schema.json describes).
// Key order is fixed so two reports diff line by line.
#pragma once

#include "common/json_document.h"
#include "reports/model/case_json.h"
#include "reports/model/report.h"

namespace samebits {

// Checks, contracts and the summary as reports/model/report_json.h writes them, a sweep's map as
// reports/model/dispatch_json.h does. Cases as reports/model/case_json.h writes them, their kernel
// launches and properties referring to the report-level tables of reports/model/case_tables.h
// ("kernel_names", "kernel_launches", "property_names", just before "cases").
Json report_to_json(const Report& report);
// One case on its own, as a journal line holds it: {"case": {...}, "kernel_names": [...],
// "kernel_launches": [...], "property_names": [...]}.
Json case_record_to_json(const CaseResult& c);
// The report as text: top-level keys indented, and each element of a long array (a case, a check,
// a kernel name) or each part of the dispatch map on one line, so files stay small and diff by
// case.
std::string render_report(const Json& report);

}  // namespace samebits
