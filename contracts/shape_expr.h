// The tiny expression language of schema-op contracts' shapes and integer arguments: integers,
// axis names, + - * and parentheses ("n*2", "(T + 1) * H"), parsed once, evaluated per point.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace samebits {

class ShapeExpr {
 public:
  ShapeExpr() = default;
  // Throws std::invalid_argument saying where the text stops making sense and what is accepted.
  static ShapeExpr parse(const std::string& text);
  static ShapeExpr constant(std::int64_t value);

  // The axis names it reads.
  const std::set<std::string>& axes() const { return axes_; }
  const std::string& text() const { return text_; }
  // Whether it is exactly one axis name ("T"), as a sequence dim's extent must be.
  bool is_axis(const std::string& name) const;

  // The value with each axis looked up (nothing: unknown). Throws std::invalid_argument for an
  // unknown axis or a result past int64.
  using Lookup = std::function<std::optional<std::int64_t>(const std::string&)>;
  std::int64_t evaluate(const Lookup& lookup) const;

 private:
  // Reverse Polish: numbers and axes push, operators pop two and push one.
  struct Token {
    enum class Kind { number, axis, add, sub, mul, neg } kind = Kind::number;
    std::int64_t number = 0;
    std::string axis;
  };
  friend class ShapeExprParser;
  std::vector<Token> program_;
  std::set<std::string> axes_;
  std::string text_;
};

}  // namespace samebits
