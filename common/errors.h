// ContractError: an input (a contract, a report, a baseline, a command line) that cannot be used.
// Its message always names the file and the JSON path (or line:column), and the accepted values.
#pragma once

#include <stdexcept>
#include <string>

namespace samebits {

class ContractError : public std::runtime_error {
 public:
  explicit ContractError(const std::string& message) : std::runtime_error(message) {}
};

// "file: /checks/1/compare: message" (JSON Pointer paths, RFC 6901).
[[noreturn]] void throw_contract_error(const std::string& file, const std::string& json_path,
                                       const std::string& message);

}  // namespace samebits
