// find_rule on hand-built point sets: values, residues (moduli 2 to 64), residue runs, thresholds,
// two-term rules, the inexact fallback, and how long a search of 6000 points takes to set up.
#include "dispatch/rules.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace samebits {
namespace {

using Properties = std::vector<std::vector<std::pair<std::string, std::int64_t>>>;

// One property `name` with the given values, one point each.
Properties one_property(const std::string& name, const std::vector<std::int64_t>& values) {
  Properties properties;
  for (std::int64_t v : values) properties.push_back({{name, v}});
  return properties;
}

std::vector<std::int64_t> range(std::int64_t first, std::int64_t last) {
  std::vector<std::int64_t> values;
  for (std::int64_t v = first; v <= last; ++v) values.push_back(v);
  return values;
}

// The points (by their first property's value) where `in` holds.
std::vector<bool> select(const Properties& properties,
                         const std::function<bool(std::int64_t)>& in) {
  std::vector<bool> inside;
  for (const auto& point : properties) inside.push_back(in(point.front().second));
  return inside;
}

struct RuleCase {
  std::string name;
  Properties properties;
  std::vector<bool> inside;
  std::string text;
  bool exact;
  std::int64_t matched;
};
void PrintTo(const RuleCase& c, std::ostream* os) {
  *os << c.name;
}

class FindRuleTest : public ::testing::TestWithParam<RuleCase> {};

TEST_P(FindRuleTest, SimplestRule) {
  const RuleCase& c = GetParam();
  const Rule rule = find_rule(c.properties, c.inside);
  EXPECT_EQ(rule.text, c.text);
  EXPECT_EQ(rule.exact, c.exact);
  EXPECT_EQ(rule.matched, c.matched);
  EXPECT_EQ(rule.considered, static_cast<std::int64_t>(c.properties.size()));
}

const Properties kN16 = one_property("N", range(0, 15));
const Properties kN32 = one_property("N", range(0, 31));
const Properties kPowersK = one_property("k", {1, 2, 4, 8, 16, 32, 64, 128, 256});
const Properties kM = one_property("M", range(1, 10));
const Properties kN120To300 = one_property("N", range(120, 300));
const Properties kN127To400 = one_property("N", range(127, 400));

// N and row_stride = N + 1, listed in the given order.
Properties stride_after_n(bool n_first) {
  Properties properties;
  for (std::int64_t n = 0; n < 8; ++n) {
    if (n_first) {
      properties.push_back({{"N", n}, {"row_stride", n + 1}});
    } else {
      properties.push_back({{"row_stride", n + 1}, {"N", n}});
    }
  }
  return properties;
}

// Points (N, k) for N in 100..103 and k in 16, 32, 64: only k separates k <= 32.
Properties n_by_k() {
  Properties properties;
  for (std::int64_t n = 100; n < 104; ++n) {
    for (std::int64_t k : {16, 32, 64}) properties.push_back({{"N", n}, {"k", k}});
  }
  return properties;
}
std::vector<bool> k_at_most_32() {
  std::vector<bool> inside;
  for (const auto& point : n_by_k()) inside.push_back(point[1].second <= 32);
  return inside;
}

// N = 0..7 and k, odd at N = 0, 2, 3, 5, 7; `drop_k_at` removes k from one point.
Properties n_and_scrambled_k(int drop_k_at) {
  const std::int64_t k[] = {5, 8, 3, 3, 10, 7, 12, 1};
  Properties properties;
  for (std::int64_t n = 0; n < 8; ++n) {
    properties.push_back({{"N", n}});
    if (n != drop_k_at) properties.back().push_back({"k", k[n]});
  }
  return properties;
}
const std::vector<bool> kOddK = {true, false, true, true, false, true, false, true};

auto is = [](std::int64_t v) { return [v](std::int64_t x) { return x == v; }; };

const RuleCase kRuleCases[] = {
    {"ResidueModFour", kN16, select(kN16, [](auto n) { return n % 4 == 1; }), "N % 4 == 1", true,
     16},
    {"AllButOneResidue", kN16, select(kN16, [](auto n) { return n % 4 != 3; }), "N % 4 != 3", true,
     16},
    {"OddIsParity", kN16, select(kN16, [](auto n) { return n % 2 == 1; }), "N % 2 == 1", true, 16},
    {"ResidueModSixteen", kN32, select(kN32, [](auto n) { return n % 16 == 5; }), "N % 16 == 5",
     true, 32},
    {"AtMost", kPowersK, select(kPowersK, [](auto k) { return k <= 32; }), "k <= 32", true, 9},
    {"AtLeast", kPowersK, select(kPowersK, [](auto k) { return k >= 64; }), "k >= 64", true, 9},
    {"OneValue", kM, select(kM, is(7)), "M == 7", true, 10},
    {"AllButOneValue", kM, select(kM, [](auto m) { return m != 7; }), "M != 7", true, 10},
    {"SecondPropertyDecides", n_by_k(), k_at_most_32(), "k <= 32", true, 12},
    {"FirstPropertyWinsTies", stride_after_n(true),
     select(stride_after_n(true), [](auto n) { return n % 2 == 0; }), "N % 2 == 0", true, 8},
    {"ListedOrderDecidesTies", stride_after_n(false),
     select(stride_after_n(false), [](auto stride) { return stride % 2 == 1; }),
     "row_stride % 2 == 1", true, 8},
    {"ResidueAndThreshold", kN120To300,
     select(kN120To300, [](auto n) { return n % 4 != 0 && n >= 256; }), "N % 4 != 0 and N >= 256",
     true, 181},
    {"ResidueOrThreshold", kN120To300,
     select(kN120To300, [](auto n) { return n % 4 == 0 || n < 256; }), "N % 4 == 0 or N < 256",
     true, 181},
    {"RangeLowerBoundFirst", kN32, select(kN32, [](auto n) { return n >= 8 && n <= 15; }),
     "N >= 8 and N <= 15", true, 32},
    {"MostlyOneResidue", kN16, select(kN16, [](auto n) { return n % 4 == 0 || n == 5 || n == 10; }),
     "N % 4 == 0", false, 14},
    {"ResidueModSixtyFour", kN120To300, select(kN120To300, [](auto n) { return n % 64 == 17; }),
     "N % 64 == 17", true, 181},
    // The border a user found for row sums: N mod 32 in 29..31 (N = 127..400).
    {"ResidueRun", kN127To400, select(kN127To400, [](auto n) { return n % 32 >= 29; }),
     "N % 32 in 29..31", true, 274},
    {"ResidueRunComplement", kN127To400, select(kN127To400, [](auto n) { return n % 32 < 29; }),
     "N % 32 not in 29..31", true, 274},
    // The cheaper term first; the threshold the roundest of 200..213 (the set starts at 213).
    {"ResidueRunAndThreshold", kN127To400,
     select(kN127To400, [](auto n) { return n % 16 >= 5 && n % 16 <= 7 && n >= 200; }),
     "N >= 208 and N % 16 in 5..7", true, 274},
    // A run of residues that is also a parity or a single residue reads as the cheaper rule.
    {"RunThatIsAResidue", kN127To400, select(kN127To400, [](auto n) { return n % 8 == 4; }),
     "N % 8 == 4", true, 274},
    {"RunThatIsAParity", kN127To400,
     select(kN127To400,
            [](auto n) { return n % 8 == 1 || n % 8 == 3 || n % 8 == 5 || n % 8 == 7; }),
     "N % 2 == 1", true, 274},
    {"ScatteredPoints", kN32,
     select(kN32, [](auto n) { return n == 3 || n == 17 || n == 22 || n == 28; }), "no simple rule",
     false, 0},
    {"WholeSet", kN16, std::vector<bool>(16, true), "all points", true, 16},
    {"EmptySet", kN16, std::vector<bool>(16, false), "no points", true, 16},
    {"NoPointsAtAll", {}, {}, "no points", true, 0},
    {"PropertyEverywhereIsUsed", n_and_scrambled_k(-1), kOddK, "k % 2 == 1", true, 8},
    {"PropertyMissingSomewhereIsNot", n_and_scrambled_k(4), kOddK, "no simple rule", false, 0},
};
INSTANTIATE_TEST_SUITE_P(Sets, FindRuleTest, ::testing::ValuesIn(kRuleCases),
                         [](const auto& info) { return info.param.name; });

TEST(FindRule, RefusesMismatchedSizes) {
  EXPECT_THROW(find_rule(kN16, std::vector<bool>(15, true)), std::invalid_argument);
}

}  // namespace
}  // namespace samebits
