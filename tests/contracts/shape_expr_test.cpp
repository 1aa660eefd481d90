// The expression language of schema contracts' shapes: values worked out by hand, the axes an
// expression reads, and every malformed text refused with where it stops making sense.
#include "contracts/shape_expr.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

namespace samebits {
namespace {

std::int64_t eval(const std::string& text, const std::map<std::string, std::int64_t>& axes = {}) {
  return ShapeExpr::parse(text).evaluate([&](const std::string& name) {
    const auto it = axes.find(name);
    return it == axes.end() ? std::nullopt : std::optional<std::int64_t>(it->second);
  });
}

TEST(ShapeExpr, EvaluatesWithPrecedenceAndParentheses) {
  EXPECT_EQ(eval("7"), 7);
  EXPECT_EQ(eval("n*2", {{"n", 5}}), 10);
  EXPECT_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(eval("10 - 4 - 3"), 3);  // left to right
  EXPECT_EQ(eval("-3 + 4"), 1);
  EXPECT_EQ(eval("(T + 1) * H", {{"T", 4}, {"H", 3}}), 15);
  EXPECT_EQ(eval("head_dim*kv_heads", {{"head_dim", 8}, {"kv_heads", 2}}), 16);
}

TEST(ShapeExpr, ListsTheAxesItReads) {
  const ShapeExpr e = ShapeExpr::parse("(T + 1) * H - T");
  EXPECT_EQ(e.axes(), (std::set<std::string>{"H", "T"}));
  EXPECT_TRUE(ShapeExpr::parse("T").is_axis("T"));
  EXPECT_FALSE(ShapeExpr::parse("T*1").is_axis("T"));
  EXPECT_FALSE(ShapeExpr::parse("T").is_axis("D"));
}

TEST(ShapeExpr, UnknownAxisAtEvaluationIsNamed) {
  try {
    eval("M*2", {{"N", 1}});
    FAIL() << "evaluated";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("axis \"M\""), std::string::npos) << e.what();
  }
}

TEST(ShapeExpr, OverflowIsRefused) {
  EXPECT_THROW(eval("4611686018427387904 * 2"), std::invalid_argument);
  EXPECT_THROW(eval("99999999999999999999"), std::invalid_argument);
}

class MalformedExpr : public ::testing::TestWithParam<std::string> {};

TEST_P(MalformedExpr, IsRefusedNamingTheAcceptedForms) {
  try {
    ShapeExpr::parse(GetParam());
    FAIL() << "parsed \"" << GetParam() << "\"";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("accepted: integers, axis names, + - * and parentheses"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("at character"), std::string::npos) << message;
  }
}

INSTANTIATE_TEST_SUITE_P(Texts, MalformedExpr,
                         ::testing::Values("", "n*", "2 $", "(n + 1", "n / 2", "n 2", "*3",
                                           std::string(40, '(') + "1" + std::string(40, ')'),
                                           std::string(300, '1')));

}  // namespace
}  // namespace samebits
