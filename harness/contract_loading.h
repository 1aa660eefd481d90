// Finds the contracts a command names: files, folders of *.json, or (when none are named) the
// default suite compiled into the binary.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "contracts/contract.h"

namespace samebits {

// Throws ContractError for unreadable or malformed files.
std::vector<std::unique_ptr<Contract>> load_contracts(const std::vector<std::string>& paths);

}  // namespace samebits
