// Readable GoogleTest names and values: "batch_invariance" -> "BatchInvariance" for test names (the
// gtest docs ask for no underscores), and the samebits enums printed by name in failure messages.
#pragma once

#include <cctype>
#include <ostream>
#include <string>

#include "contracts/contract.h"
#include "reports/model/report.h"

namespace samebits {

inline std::string camel_case(const std::string& snake) {
  std::string out;
  bool upper = true;
  for (char c : snake) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

// Found by argument-dependent lookup when gtest prints a value of these types.
inline void PrintTo(CheckKind kind, std::ostream* os) {
  *os << to_string(kind);
}
inline void PrintTo(CompareMode mode, std::ostream* os) {
  *os << to_string(mode);
}
inline void PrintTo(Verdict verdict, std::ostream* os) {
  *os << to_string(verdict);
}
inline void PrintTo(Outcome outcome, std::ostream* os) {
  *os << to_string(outcome);
}

}  // namespace samebits
