// Reading one JSON record field by field (in from_json, and the report reader): typed fields with
// the defaults of fields a layout may leave out, errors as JSON Pointers inside the record.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/json_document.h"

namespace samebits {

// A field that is not what the layout says: where (a JSON Pointer inside the record being read,
// "" for the record itself) and why. The reader completes the path and names the file.
class FieldError : public std::runtime_error {
 public:
  FieldError(std::string pointer, const std::string& what)
      : std::runtime_error(what), pointer_(std::move(pointer)) {}
  const std::string& pointer() const { return pointer_; }

 private:
  std::string pointer_;
};

// read() with every error (a FieldError, or nlohmann's own: a wrong type in a nested get<>) placed
// under `pointer`.
template <typename F>
auto within(const std::string& pointer, F&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const FieldError& e) {
    throw FieldError(pointer + e.pointer(), e.what());
  } catch (const Json::exception& e) {
    throw FieldError(pointer, e.what());
  }
}

// One JSON object's fields. Absent and null fields take the fallback; present fields of the wrong
// type are errors.
class Fields {
 public:
  explicit Fields(const Json& j) : j_(j) {
    if (!j_.is_object())
      throw FieldError("", fmt::format("expected an object, got {}", j_.type_name()));
  }
  // The JSON Pointer of `key` within this record ("~" and "/" escaped, as RFC 6901 says).
  static std::string at(const std::string& key) {
    std::string out = "/";
    for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return out;
  }
  // Refuses any key outside `known` ("$schema" and "comment" aside), naming the accepted ones:
  // for records read from files people write, where a misspelt key must not read as absent.
  const Fields& only(const std::vector<std::string>& known) const {
    for (const auto& item : j_.items()) {
      const std::string& key = item.key();
      if (key == "$schema" || key == "comment") continue;
      bool listed = false;
      for (const auto& k : known) listed = listed || k == key;
      if (!listed)
        throw FieldError(at(key), fmt::format("unknown field \"{}\"; accepted: {}", key,
                                              fmt::join(known, ", ")));
    }
    return *this;
  }
  bool has(const std::string& key) const { return j_.contains(key) && !j_.at(key).is_null(); }
  const Json& required(const std::string& key) const {
    if (!j_.contains(key)) throw FieldError("", fmt::format("missing field \"{}\"", key));
    return j_.at(key);
  }
  const Json& array(const std::string& key) const {
    const Json& v = required(key);
    if (!v.is_array())
      throw FieldError(at(key), fmt::format("expected an array, got {}", v.type_name()));
    return v;
  }
  std::string text(const std::string& key, const std::string& fallback = "") const {
    if (!has(key)) return fallback;
    const Json& v = j_.at(key);
    if (!v.is_string())
      throw FieldError(at(key), fmt::format("expected a string, got {}", v.type_name()));
    return v.get<std::string>();
  }
  template <typename T>
  T number(const std::string& key, T fallback = T{}) const {
    if (!has(key)) return fallback;
    const Json& v = j_.at(key);
    // Non-finite doubles are written as "nan", "inf", "-inf".
    if constexpr (std::is_floating_point_v<T>) {
      if (v == "nan") return std::numeric_limits<T>::quiet_NaN();
      if (v == "inf") return std::numeric_limits<T>::infinity();
      if (v == "-inf") return -std::numeric_limits<T>::infinity();
    }
    if (!v.is_number())
      throw FieldError(at(key), fmt::format("expected a number, got {}", v.type_name()));
    return v.get<T>();
  }
  bool flag(const std::string& key, bool fallback = false) const {
    if (!has(key)) return fallback;
    if (!j_.at(key).is_boolean()) throw FieldError(at(key), "expected true or false");
    return j_.at(key).get<bool>();
  }
  template <typename Enum>
  Enum enumerated(const std::string& key, const std::vector<std::string>& names,
                  std::optional<Enum> fallback = std::nullopt) const {
    if (!has(key) && fallback) return *fallback;
    const std::string value = text(key);
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == value) return static_cast<Enum>(i);
    }
    throw FieldError(at(key),
                     fmt::format("\"{}\" is not one of: {}", value, fmt::join(names, ", ")));
  }
  // The field by T's from_json (ADL), its errors under the field's path.
  template <typename T>
  T as(const std::string& key) const {
    const Json& v = required(key);
    return within(at(key), [&] { return v.get<T>(); });
  }
  // An array field (absent or null: empty), each element by T's from_json.
  template <typename T>
  std::vector<T> list(const std::string& key) const {
    std::vector<T> out;
    if (!has(key)) return out;
    const Json& a = array(key);
    out.reserve(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      out.push_back(within(fmt::format("/{}/{}", key, i), [&] { return a[i].get<T>(); }));
    }
    return out;
  }
  const Json& json() const { return j_; }

 private:
  const Json& j_;
};

}  // namespace samebits
