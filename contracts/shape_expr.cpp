// The tiny expression language of schema-op contracts' shapes and integer arguments: integers,
// axis names, + - * and parentheses ("n*2", "(T + 1) * H"), parsed once, evaluated per point.
#include "contracts/shape_expr.h"

#include <fmt/format.h>

#include <cctype>
#include <stdexcept>

namespace samebits {

// Recursive descent over  sum := product (('+' | '-') product)*,  product := unary ('*' unary)*,
// unary := '-' unary | atom,  atom := integer | name | '(' sum ')'; emits Reverse Polish.
class ShapeExprParser {
 public:
  explicit ShapeExprParser(const std::string& text) : text_(text) {}

  ShapeExpr run() {
    if (text_.size() > kMaxLength) fail(fmt::format("longer than {} characters", kMaxLength));
    out_.text_ = text_;
    sum(0);
    skip_spaces();
    if (pos_ != text_.size()) fail(fmt::format("unexpected '{}'", text_[pos_]));
    return std::move(out_);
  }

 private:
  static constexpr std::size_t kMaxLength = 200;
  static constexpr int kMaxDepth = 16;
  using Kind = ShapeExpr::Token::Kind;

  [[noreturn]] void fail(const std::string& why) const {
    throw std::invalid_argument(fmt::format(
        "expression \"{}\": {} at character {}; accepted: integers, axis names, + - * and "
        "parentheses",
        text_, why, pos_ + 1));
  }
  void skip_spaces() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  bool take(char c) {
    skip_spaces();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void emit(Kind kind) { out_.program_.push_back({kind, 0, {}}); }

  void sum(int depth) {
    product(depth);
    for (;;) {
      if (take('+')) {
        product(depth);
        emit(Kind::add);
      } else if (take('-')) {
        product(depth);
        emit(Kind::sub);
      } else {
        return;
      }
    }
  }
  void product(int depth) {
    unary(depth);
    while (take('*')) {
      unary(depth);
      emit(Kind::mul);
    }
  }
  void unary(int depth) {
    if (depth > kMaxDepth) fail(fmt::format("nested deeper than {}", kMaxDepth));
    if (take('-')) {
      unary(depth + 1);
      emit(Kind::neg);
      return;
    }
    atom(depth);
  }
  void atom(int depth) {
    skip_spaces();
    if (pos_ >= text_.size()) fail("a number, an axis or '(' is missing");
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      sum(depth + 1);
      if (!take(')')) fail("')' is missing");
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::int64_t value = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        const int digit = text_[pos_] - '0';
        if (__builtin_mul_overflow(value, 10, &value) ||
            __builtin_add_overflow(value, digit, &value))
          fail("a number past int64");
        ++pos_;
      }
      out_.program_.push_back({Kind::number, value, {}});
      return;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      std::string name = text_.substr(start, pos_ - start);
      out_.axes_.insert(name);
      out_.program_.push_back({Kind::axis, 0, std::move(name)});
      return;
    }
    fail(fmt::format("unexpected '{}'", c));
  }

  const std::string& text_;
  std::size_t pos_ = 0;
  ShapeExpr out_;
};

ShapeExpr ShapeExpr::parse(const std::string& text) {
  return ShapeExprParser(text).run();
}

ShapeExpr ShapeExpr::constant(std::int64_t value) {
  ShapeExpr out;
  out.text_ = std::to_string(value);
  out.program_.push_back({Token::Kind::number, value, {}});
  return out;
}

bool ShapeExpr::is_axis(const std::string& name) const {
  return program_.size() == 1 && program_[0].kind == Token::Kind::axis && program_[0].axis == name;
}

std::int64_t ShapeExpr::evaluate(const Lookup& lookup) const {
  std::vector<std::int64_t> stack;
  const auto overflow = [&] {
    throw std::invalid_argument(fmt::format("expression \"{}\" overflows int64", text_));
  };
  for (const auto& t : program_) {
    if (t.kind == Token::Kind::number) {
      stack.push_back(t.number);
      continue;
    }
    if (t.kind == Token::Kind::axis) {
      const auto v = lookup(t.axis);
      if (!v) {
        throw std::invalid_argument(
            fmt::format("expression \"{}\" reads axis \"{}\", which the point has no integer "
                        "value for",
                        text_, t.axis));
      }
      stack.push_back(*v);
      continue;
    }
    if (t.kind == Token::Kind::neg) {
      if (stack.back() == INT64_MIN) overflow();
      stack.back() = -stack.back();
      continue;
    }
    const std::int64_t b = stack.back();
    stack.pop_back();
    std::int64_t& a = stack.back();
    const bool bad = t.kind == Token::Kind::add   ? __builtin_add_overflow(a, b, &a)
                     : t.kind == Token::Kind::sub ? __builtin_sub_overflow(a, b, &a)
                                                  : __builtin_mul_overflow(a, b, &a);
    if (bad) overflow();
  }
  return stack.at(0);
}

}  // namespace samebits
