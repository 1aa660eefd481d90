// Finds the contracts a command names: files, folders of *.json, reports (which carry the texts
// of the contracts they ran), or (when none are named) the default suite compiled into the binary.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "contracts/contract.h"

namespace samebits {

// A path may be a contract, a folder of contracts, a samebits report (then the contracts it ran,
// under their names, so `samebits run REPORT --case ID` reruns one of its cases with the same
// inputs), or "suite:NAME", a suite compiled into the binary (default, extra). Throws ContractError
// for unreadable or malformed files and unknown suites.
std::vector<std::unique_ptr<Contract>> load_contracts(const std::vector<std::string>& paths);

// The files one named path stands for: itself, or a folder's *.json (schemas left out), sorted.
// Throws ContractError for a folder that cannot be read or holds no contract.
std::vector<std::string> contract_files(const std::string& path);

// Throws ContractError when two contracts share a name (their case ids would collide).
void check_distinct_names(const std::vector<std::unique_ptr<Contract>>& contracts);

}  // namespace samebits
