// Parses JSON text into an ordered document, turning syntax errors into file:line:column messages.
// nlohmann reports a byte offset; people read lines and columns.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace samebits {

using Json = nlohmann::ordered_json;

// Objects and arrays nested deeper than this are refused (no samebits file needs more than ten).
inline constexpr int kMaxJsonDepth = 64;

// Throws ContractError("file:line:column: message") on malformed text (gzip data named as such), and ContractError naming
// the JSON path on nesting deeper than kMaxJsonDepth, a key repeated in one object, or a number
// beyond double's range.
Json parse_json_document(const std::string& text, const std::string& file);

// Line and column (both from 1) of a byte offset in text.
struct TextPosition {
  std::size_t line = 1;
  std::size_t column = 1;
};
TextPosition position_of(const std::string& text, std::size_t byte_offset);

}  // namespace samebits
