// Reading a report back into the typed model (the inverse of reports/model/json_report.h), so that
// render, diff, merge and baselines work on reports written earlier, on other machines.
#pragma once

#include <string>

#include "common/json_document.h"
#include "reports/model/report.h"

namespace samebits {

// Reads reports of schema 2.x and 3.x (fields added in later minor versions default as they did
// before them: expectations from promises, planned = the cases run; fields 3.0 leaves out take
// their defaults, reports/model/case_json.h). Throws ContractError naming `source`, the JSON path
// and what was expected; a schema 1.x report is refused with how to regenerate it.
Report report_from_json(const Json& report, const std::string& source);
// One case as case_record_to_json (reports/model/json_report.h) writes it, a journal line; errors
// name `source` and `path`.
CaseResult case_record_from_json(const Json& record, const std::string& source,
                                 const std::string& path);

// A report file, .json or .json.gz (the examples are compressed).
Report read_report_file(const std::string& path);
// The file's JSON as it is, for callers that need the document (contract texts, settings).
Json read_report_json(const std::string& path);

}  // namespace samebits
