// ContractError: a contract (or a command line naming one) that cannot be used, with where and why.
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
