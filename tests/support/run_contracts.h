// Runs contracts the way `samebits run` does, through the one pipeline entry point, for tests
// that build their own contracts and registries. Kernel capture is off unless asked for.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/pipeline.h"

namespace samebits {

inline Report run_contracts_report(const std::vector<std::unique_ptr<Contract>>& contracts,
                                   const OpRegistry& registry, const std::string& device,
                                   const std::string& filter = "") {
  RunRequest request;
  request.contracts = &contracts;
  request.registry = &registry;
  request.device = device;
  request.capture = "off";
  request.selection.filter = filter;
  return run_pipeline(request);
}

inline std::vector<CaseResult> run_contracts(
    const std::vector<std::unique_ptr<Contract>>& contracts, const OpRegistry& registry,
    const std::string& device, const std::string& filter = "") {
  return run_contracts_report(contracts, registry, device, filter).cases;
}

}  // namespace samebits
