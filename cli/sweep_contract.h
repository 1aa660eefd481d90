// `samebits sweep` as a contract: its options become one contract (the op's axes held fixed, one
// axis swept, a check comparing layouts), so a sweep's points are cases `samebits run` reruns.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/json_document.h"
#include "contracts/check_kind.h"
#include "harness/op_registry.h"

namespace samebits {

struct SweepSpec {
  std::string op;
  std::string impl;                  // empty: the op's first implementation
  std::vector<std::string> set;      // "AXIS=VALUE", held fixed
  std::string vary;                  // "AXIS=FIRST:LAST[:STEP]" or "AXIS=V1,V2,..."
  std::vector<std::string> layouts;  // compared with the contiguous reference
  std::int64_t batch = 1;            // items per call unless the swept axis is "batch"
  std::string check;                 // --check: "" (from the layouts), determinism,
                                     // layout_invariance or batch_invariance
  std::vector<std::string> command;  // the command line, for the contract's description
};

// What the sweep runs: --check's kind; without it a layout_invariance check when a layout other
// than contiguous is named, otherwise determinism (the contiguous batch, run twice).
// batch_invariance compares the first item alone with the same item first in a batch of `batch`
// (swept with --vary batch=...): where the batch size changes its bits. Throws ContractError for
// another kind, layouts beside batch_invariance, or batch_invariance without a batch above 1.
CheckKind sweep_check_kind(const SweepSpec& spec);

// "7" -> 7, "0.5" -> 0.5, "true" -> true, "[1,2]" -> JSON, anything else a string.
Json parse_option_value(const std::string& text);

// The contract of a sweep, named "sweep-<op>", as JSON text. "FIRST:LAST[:STEP]" becomes the
// contract's {"range": [FIRST, LAST, STEP]}, parsed where every contract's ranges are. Throws
// ContractError naming the option (--set, --vary, --impl, --batch) for what the op cannot take by
// name; everything else is left to the contract's validation, as for any contract.
std::string sweep_contract_json(const SweepSpec& spec, const OpRegistry& registry);

// The swept axis' name.
std::string swept_axis(const SweepSpec& spec);

}  // namespace samebits
