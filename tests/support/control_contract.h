// The negative-control contract: every check kind over the control op, with each violator expected
// to break its own check and keep the others, and a registry that holds the control ops.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "contracts/contract.h"
#include "harness/op_registry.h"
#include "harness/plan.h"
#include "reports/model/report.h"

namespace samebits {

// The control op ("control") and a narrower one ("narrow_control": determinism, layout and
// padding checks only; strided layouts only; right padding only).
OpRegistry control_registry();

// The contract's JSON text: name "controls", op "control", all implementations, one check per
// kind with sweeps chosen so that each violator's flaw shows in every case of its check.
std::string control_contract_json();

// Plans the control contract on `device` and runs the cases of one check kind and implementation.
std::vector<CaseResult> run_control_cases(CheckKind kind, const std::string& impl,
                                          const std::string& device);

}  // namespace samebits
