// The parts rules are made of, shared by the rule index (rules.cpp) and the search
// (search.cpp): point sets as bitsets, terms, their cost, and the per-property index.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "dispatch/rules.h"

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
  Bits operator|(const Bits& other) const;
  std::int64_t count() const;
  std::int64_t count_and(const Bits& other) const;
  bool and_count_is(const Bits& other, std::int64_t expected) const;  // stops early when over

 private:
  std::size_t n_ = 0;
  std::vector<std::uint64_t> words_;
};

// at_most/at_least bound a set by a value; above/below only arise by negating them. mod_in and
// mod_not_in hold a run of residues a..b (a < b, no wrap past m - 1: "N % 32 in 29..31").
enum class Form {
  equal,
  not_equal,
  mod_equal,
  mod_not_equal,
  mod_in,
  mod_not_in,
  at_most,
  at_least,
  above,
  below
};

struct Term {
  int column = 0;
  Form form = Form::equal;
  std::int64_t modulus = 0;
  std::int64_t value = 0;  // v, r, t, or a run's first residue a
  std::int64_t last = 0;   // a run's last residue b
};

// The alignments kernels choose by. Residue runs are searched from kRunModuli on (a run mod 2 or
// 4 is all residues or a single one).
inline constexpr std::int64_t kModuli[] = {2, 4, 8, 16, 32, 64};
inline constexpr std::size_t kRunModuli = 2;  // index of 8 in kModuli
std::size_t modulus_index(std::int64_t modulus);

std::int64_t residue(std::int64_t v, std::int64_t m);  // in 0..m-1, negative v included
// The value in [lo, hi] divisible by the highest power of two: thresholds read "k <= 32" and
// "N >= 256" rather than "k <= 63" and "N >= 257" when the points allow either.
std::int64_t roundest(std::int64_t lo, std::int64_t hi);
bool holds(const Term& t, std::int64_t v);
// How hard a term is to read: a value or a parity 1, "% 4" and thresholds 2, "% 8" and "!= v" 3,
// "% 16" 4, "% 32" 5, "% 64" 6; a residue run one more than one residue of its modulus. A rule of
// two terms costs the sum.
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

// Points of a column whose value % m lies in a..b (residue bitsets joined).
Bits run_members(const Column& column, std::size_t modulus_index, std::int64_t first,
                 std::int64_t last);

}  // namespace rules

struct RuleSearch::Index {
  std::size_t points = 0;
  std::vector<rules::Column> columns;  // the properties every point carries, first point's order
};

// find_rule over an index (search.cpp).
Rule search_rule(const RuleSearch::Index& index, const std::vector<bool>& inside);

namespace rules {

// A set of points over an index, with its size and the size of the rest.
struct Target {
  const RuleSearch::Index& index;
  Bits in;
  std::int64_t in_total = 0;
  std::int64_t out_total = 0;
};

// Residue runs (residues.cpp), for moduli kModuli[kRunModuli..]: the cheapest exact run term of
// the set (the tightest run holding every set point and no other) if cheaper than `budget`; the
// run terms that hold at every set point and at some others (halves of two-term rules); and the
// run term agreeing with the set at the most points, passed to offer(term, matched).
std::optional<Term> cheapest_exact_run(const Target& t, int budget);
std::vector<Term> covering_runs(const Target& t);
void agreeing_runs(const Target& t, const std::function<void(const Term&, std::int64_t)>& offer);

}  // namespace rules

}  // namespace samebits
