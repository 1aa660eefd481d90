// localize's first divergent op as a schema contract that `samebits run` reruns alone: its schema
// name, each argument as both runs passed it, and the check kind the comparison stands for.
#pragma once

#include <optional>
#include <string>

#include "common/json_document.h"
#include "harness/localize/finding.h"

namespace samebits::localize {

struct RerunContract {
  std::string check;             // the check kind: "batch_invariance", "determinism", ...
  std::optional<Json> contract;  // the contract, where the op and its arguments can be described
  std::string why_not;           // else why not
};

// The contract of f's first divergent op (none without one). The op must be an aten:: op whose
// every argument is a tensor, a value or None as both sides passed it: the tensors' dims alike on
// both sides but one, the item's rows (the axis "T"), or all alike (a tensor every item shares);
// the values equal, or the runs' token counts (then "T" too). The comparison picks the check:
// alone_vs_batch batch_invariance (the item's rows alone vs in batches at least as long as the
// model's, at the item's place), run_vs_run determinism (the whole run twice), chunked_vs_whole
// and prefill_vs_decode chunking_invariance (the whole side's rows in chunks of the other's).
// Inputs are drawn afresh (normal): the model's values are not kept.
RerunContract rerun_contract(const Finding& f);

// Sets f.rerun where f has a first divergence: with a contract and a path, the contract written
// there (atomically) and the command that runs it on the finding's device.
void attach_rerun(Finding& f, const std::string& path);

// The command that runs a contract file: "samebits run FILE --device DEVICE", FILE quoted where
// a shell would split it.
std::string rerun_command(const std::string& path, const std::string& device);

}  // namespace samebits::localize
