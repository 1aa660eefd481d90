// Which planned cases a run keeps: all, those a --filter regex selects, or the one --case names.
// A filter matches at the start of the id or of one of its parts, so "softmax/" is not log_softmax.
#pragma once

#include <string>
#include <vector>

#include "harness/plan.h"

namespace samebits {

struct CaseSelection {
  // An ECMAScript regex matched at the start of the case id or right after one of its '/' or ','
  // separators: "softmax/" selects contract softmax (not log_softmax), "batch_invariance" a check,
  // "dtype=bfloat16" an axis value, "N=12" N = 12, 120, 1200.
  std::string filter;
  std::string case_id;  // exactly this id
};

// Throws ContractError for an invalid regex, an unknown --case id (listing ids that share its
// prefix), or a selection that keeps nothing.
std::vector<CaseSpec> select_cases(std::vector<CaseSpec> cases, const CaseSelection& selection);

// The device named by a case id (contract/check/impl/device/...), or "".
std::string device_of_case(const std::string& id);

}  // namespace samebits
