// Parses JSON text into an ordered document, turning syntax errors into file:line:column messages.
// nlohmann reports a byte offset; people read lines and columns.
#include "contracts/json_document.h"

#include <fmt/format.h>

#include "contracts/contract_error.h"

namespace samebits {

TextPosition position_of(const std::string& text, std::size_t byte_offset) {
  TextPosition pos;
  const std::size_t end = std::min(byte_offset, text.size());
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else {
      ++pos.column;
    }
  }
  return pos;
}

Json parse_json_document(const std::string& text, const std::string& file) {
  try {
    return Json::parse(text, /*cb=*/nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/false);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based and points one past the offending character.
    const TextPosition pos = position_of(text, e.byte == 0 ? 0 : e.byte - 1);
    std::string what = e.what();
    const auto colon = what.find(": ", what.find("parse error"));
    const std::string detail = colon == std::string::npos ? what : what.substr(colon + 2);
    throw ContractError(
        fmt::format("{}:{}:{}: malformed JSON: {}", file, pos.line, pos.column, detail));
  }
}

void throw_contract_error(const std::string& file, const std::string& json_path,
                          const std::string& message) {
  throw ContractError(
      fmt::format("{}: {}: {}", file, json_path.empty() ? "/" : json_path, message));
}

}  // namespace samebits
