// The parts rules are made of, shared by the rule index (dispatch_rules.cpp) and the search
// (dispatch_search.cpp): point sets as bitsets, terms, their cost, and the per-property index.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/dispatch.h"

namespace samebits {
namespace rules {

// A set of points 0..n-1.
class Bits {
 public:
  explicit Bits(std::size_t n = 0);
  static Bits all(std::size_t n);
  void set(std::size_t i) { words_[i / 64] |= std::uint64_t{1} << (i % 64); }
  bool test(std::size_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }
  Bits operator~() const;  // within 0..n-1
  Bits operator&(const Bits& other) const;
  std::int64_t count() const;
  std::int64_t count_and(const Bits& other) const;
  bool and_count_is(const Bits& other, std::int64_t expected) const;  // stops early when over

 private:
  std::size_t n_ = 0;
  std::vector<std::uint64_t> words_;
};

// at_most/at_least bound a set by a value; above/below only arise by negating them.
enum class Form { equal, not_equal, mod_equal, mod_not_equal, at_most, at_least, above, below };

struct Term {
  int column = 0;
  Form form = Form::equal;
  std::int64_t modulus = 0;
  std::int64_t value = 0;  // v, r or t
};

inline constexpr std::int64_t kModuli[] = {2, 4, 8, 16};

std::int64_t residue(std::int64_t v, std::int64_t m);  // in 0..m-1, negative v included
// The value in [lo, hi] divisible by the highest power of two: thresholds read "k <= 32" and
// "N >= 256" rather than "k <= 63" and "N >= 257" when the points allow either.
std::int64_t roundest(std::int64_t lo, std::int64_t hi);
bool holds(const Term& t, std::int64_t v);
// How hard a term is to read: a value or a parity 1, "% 4" and thresholds 2, "% 8" and "!= v" 3,
// "% 16" 4. A rule of two terms costs the sum.
int cost(const Term& t);
Term negated(const Term& t);
std::string text(const Term& t, const std::string& property);

// One property at every point.
struct Column {
  std::string name;
  std::vector<std::int64_t> values;
  std::vector<std::size_t> by_value;        // point indices, values ascending
  bool constant = false;                    // separates nothing
  std::vector<std::vector<Bits>> residues;  // [modulus index][r]: points with value % m == r
};

}  // namespace rules

struct RuleSearch::Index {
  std::size_t points = 0;
  std::vector<rules::Column> columns;  // the properties every point carries, first point's order
};

// find_rule over an index (dispatch_search.cpp).
Rule search_rule(const RuleSearch::Index& index, const std::vector<bool>& inside);

}  // namespace samebits
