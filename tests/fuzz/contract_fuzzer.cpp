// libFuzzer target: any bytes as a contract file. parse_contract must return a contract or throw
// ContractError (exit 2 in the CLI); anything else (another exception, a crash) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/errors.h"
#include "contracts/contract.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    samebits::parse_contract(text, "fuzz.json");
  } catch (const samebits::ContractError&) {
  }
  return 0;
}
