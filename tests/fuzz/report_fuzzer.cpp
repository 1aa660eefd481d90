// libFuzzer target: any bytes as a report and as a baseline. Reading must give the typed model or
// throw ContractError (exit 2 in the CLI); anything else (another exception, a crash) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/errors.h"
#include "common/json_document.h"
#include "reports/model/baseline.h"
#include "reports/model/report_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    samebits::report_from_json(samebits::parse_json_document(text, "fuzz.json"), "fuzz.json");
  } catch (const samebits::ContractError&) {
  }
  try {
    samebits::parse_baseline(text, "fuzz.json");
  } catch (const samebits::ContractError&) {
  }
  return 0;
}
