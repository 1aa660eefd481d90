// Reading JSON objects the way contracts are read: every key known, every value typed, every error
// naming the file, the JSON path and the accepted values. Contracts are only ever read (people
// write them), so this reader has no writer to mirror; records samebits writes use Fields.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/errors.h"
#include "common/json_document.h"
#include "common/json_fields.h"

namespace samebits::json_reading {

template <typename Enum>
struct EnumTable {
  std::vector<std::string> names;
  std::vector<Enum> values;
};

template <typename Enum>
inline std::string name_of(const EnumTable<Enum>& table, Enum value) {
  for (std::size_t i = 0; i < table.values.size(); ++i) {
    if (table.values[i] == value) return table.names[i];
  }
  return "?";
}

inline std::string accepted(const std::vector<std::string>& names) {
  return fmt::format("accepted: {}", fmt::join(names, ", "));
}

// Reads one JSON object, remembering its path and refusing keys it was not told about.
class ObjectReader {
 public:
  ObjectReader(const Json& node, std::string path, const std::string& file,
               std::vector<std::string> keys)
      : node_(node), path_(std::move(path)), file_(file), keys_(std::move(keys)) {
    if (!node_.is_object())
      fail(path_, fmt::format("expected an object, got {}", node_.type_name()));
    for (const auto& item : node_.items()) {
      if (item.key() == "$schema" || item.key() == "comment") continue;
      if (std::find(keys_.begin(), keys_.end(), item.key()) == keys_.end()) {
        fail(child(item.key()),
             fmt::format("unknown field \"{}\"; {}", item.key(), accepted(keys_)));
      }
    }
  }

  std::string child(const std::string& key) const { return path_ + Fields::at(key); }
  bool has(const std::string& key) const { return node_.contains(key); }
  const Json& raw(const std::string& key) const { return node_.at(key); }

  const Json& required(const std::string& key) const {
    if (!has(key)) fail(path_, fmt::format("missing required field \"{}\"", key));
    return node_.at(key);
  }
  std::string string(const std::string& key, const std::string& fallback = "") const {
    if (!has(key)) return fallback;
    const Json& v = node_.at(key);
    if (!v.is_string()) fail(child(key), fmt::format("expected a string, got {}", v.type_name()));
    return v.get<std::string>();
  }
  std::string required_string(const std::string& key) const {
    required(key);
    return string(key);
  }
  template <typename Enum>
  Enum enumerated(const std::string& key, const EnumTable<Enum>& table,
                  const std::string& what) const {
    const std::string text = required_string(key);
    return parse_enum(text, child(key), table, what);
  }
  template <typename Enum>
  Enum parse_enum(const std::string& text, const std::string& path, const EnumTable<Enum>& table,
                  const std::string& what) const {
    for (std::size_t i = 0; i < table.names.size(); ++i) {
      if (table.names[i] == text) return table.values[i];
    }
    fail(path, fmt::format("unknown {} \"{}\"; {}", what, text, accepted(table.names)));
  }
  std::optional<double> number(const std::string& key) const {
    if (!has(key)) return std::nullopt;
    const Json& v = node_.at(key);
    if (!v.is_number()) fail(child(key), fmt::format("expected a number, got {}", v.type_name()));
    const double d = v.get<double>();
    if (d < 0) fail(child(key), fmt::format("must not be negative, got {}", d));
    return d;
  }
  std::optional<std::int64_t> count(const std::string& key) const {
    if (!has(key)) return std::nullopt;
    const Json& v = node_.at(key);
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0) {
      fail(child(key), fmt::format("expected a non-negative integer, got {}", v.dump()));
    }
    return v.get<std::int64_t>();
  }
  bool boolean(const std::string& key, bool fallback) const {
    if (!has(key)) return fallback;
    const Json& v = node_.at(key);
    if (!v.is_boolean()) fail(child(key), fmt::format("expected true or false, got {}", v.dump()));
    return v.get<bool>();
  }
  std::vector<std::string> strings(const std::string& key) const {
    std::vector<std::string> out;
    if (!has(key)) return out;
    const Json& v = node_.at(key);
    if (!v.is_array()) fail(child(key), "expected an array of strings");
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) fail(fmt::format("{}/{}", child(key), i), "expected a string");
      out.push_back(v[i].get<std::string>());
    }
    return out;
  }

  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw_contract_error(file_, path, message);
  }
  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }

 private:
  const Json& node_;
  std::string path_;
  const std::string& file_;
  std::vector<std::string> keys_;
};

}  // namespace samebits::json_reading
