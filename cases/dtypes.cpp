// The dtypes a contract may name, and their ATen scalar types. One table, so error messages
// and `samebits list` show the same accepted names.
#include "cases/dtypes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>
#include <utility>

namespace samebits {
namespace {

const std::vector<std::pair<std::string, c10::ScalarType>>& table() {
  static const std::vector<std::pair<std::string, c10::ScalarType>> t = {
      {"float32", c10::ScalarType::Float},
      {"float16", c10::ScalarType::Half},
      {"bfloat16", c10::ScalarType::BFloat16},
      {"float64", c10::ScalarType::Double},
      {"float8_e4m3fn", c10::ScalarType::Float8_e4m3fn},
      {"float8_e5m2", c10::ScalarType::Float8_e5m2},
      {"int64", c10::ScalarType::Long},
      {"int32", c10::ScalarType::Int},
  };
  return t;
}

}  // namespace

const std::vector<std::string>& dtype_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& e : table()) n.push_back(e.first);
    return n;
  }();
  return names;
}

c10::ScalarType parse_dtype(const std::string& name) {
  for (const auto& e : table()) {
    if (e.first == name) return e.second;
  }
  throw std::invalid_argument(
      fmt::format("unknown dtype \"{}\"; accepted: {}", name, fmt::join(dtype_names(), ", ")));
}

std::string dtype_name(c10::ScalarType type) {
  for (const auto& e : table()) {
    if (e.second == type) return e.first;
  }
  return c10::toString(type);
}

}  // namespace samebits
