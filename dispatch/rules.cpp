// The pieces of find_rule: terms ("N % 4 == 0", "k <= 32") with their cost and text, point sets as
// bitsets, and RuleSearch's index of the properties (residue classes as bitsets, values sorted).
#include "dispatch/rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "dispatch/terms.h"

namespace samebits {
namespace rules {

Bits::Bits(std::size_t n) : n_(n), words_((n + 63) / 64) {}

Bits Bits::all(std::size_t n) {
  Bits b(n);
  for (std::size_t i = 0; i < n; ++i) b.set(i);
  return b;
}

Bits Bits::operator~() const {
  Bits b(n_);
  for (std::size_t w = 0; w < words_.size(); ++w) b.words_[w] = ~words_[w];
  if (n_ % 64) b.words_.back() &= (std::uint64_t{1} << (n_ % 64)) - 1;
  return b;
}

Bits Bits::operator&(const Bits& other) const {
  Bits b(n_);
  for (std::size_t w = 0; w < words_.size(); ++w) b.words_[w] = words_[w] & other.words_[w];
  return b;
}

Bits Bits::operator|(const Bits& other) const {
  Bits b(n_);
  for (std::size_t w = 0; w < words_.size(); ++w) b.words_[w] = words_[w] | other.words_[w];
  return b;
}

std::int64_t Bits::count() const {
  std::int64_t c = 0;
  for (std::uint64_t w : words_) c += __builtin_popcountll(w);
  return c;
}

std::int64_t Bits::count_and(const Bits& other) const {
  std::int64_t c = 0;
  for (std::size_t w = 0; w < words_.size(); ++w)
    c += __builtin_popcountll(words_[w] & other.words_[w]);
  return c;
}

bool Bits::and_count_is(const Bits& other, std::int64_t expected) const {
  std::int64_t c = 0;
  for (std::size_t w = 0; w < words_.size() && c <= expected; ++w) {
    c += __builtin_popcountll(words_[w] & other.words_[w]);
  }
  return c == expected;
}

std::int64_t residue(std::int64_t v, std::int64_t m) {
  return ((v % m) + m) % m;
}

std::size_t modulus_index(std::int64_t modulus) {
  return static_cast<std::size_t>(std::find(std::begin(kModuli), std::end(kModuli), modulus) -
                                  std::begin(kModuli));
}

Bits run_members(const Column& column, std::size_t m, std::int64_t first, std::int64_t last) {
  Bits b = column.residues[m][static_cast<std::size_t>(first)];
  for (std::int64_t r = first + 1; r <= last; ++r) b = b | column.residues[m][r];
  return b;
}

std::int64_t roundest(std::int64_t lo, std::int64_t hi) {
  for (int bit = 62; bit > 0; --bit) {
    const std::int64_t step = std::int64_t{1} << bit;
    const std::int64_t down = lo - residue(lo, step);
    const std::int64_t up = down == lo ? lo : down + step;
    if (up >= lo && up <= hi) return up;
  }
  return lo;
}

bool holds(const Term& t, std::int64_t v) {
  switch (t.form) {
    case Form::equal: return v == t.value;
    case Form::not_equal: return v != t.value;
    case Form::mod_equal: return residue(v, t.modulus) == t.value;
    case Form::mod_not_equal: return residue(v, t.modulus) != t.value;
    case Form::mod_in:
    case Form::mod_not_in: {
      const std::int64_t r = residue(v, t.modulus);
      return (r >= t.value && r <= t.last) == (t.form == Form::mod_in);
    }
    case Form::at_most: return v <= t.value;
    case Form::at_least: return v >= t.value;
    case Form::above: return v > t.value;
    case Form::below: return v < t.value;
  }
  return false;
}

int cost(const Term& t) {
  switch (t.form) {
    case Form::equal: return 1;
    case Form::not_equal: return 3;
    case Form::mod_equal:
    case Form::mod_not_equal: return static_cast<int>(modulus_index(t.modulus)) + 1;
    case Form::mod_in:
    case Form::mod_not_in: return static_cast<int>(modulus_index(t.modulus)) + 2;
    default: return 2;
  }
}

Term negated(const Term& t) {
  Term n = t;
  switch (t.form) {
    case Form::equal: n.form = Form::not_equal; break;
    case Form::not_equal: n.form = Form::equal; break;
    case Form::mod_equal:
      if (t.modulus == 2) {
        n.value = 1 - t.value;
      } else {
        n.form = Form::mod_not_equal;
      }
      break;
    case Form::mod_not_equal: n.form = Form::mod_equal; break;
    case Form::mod_in: n.form = Form::mod_not_in; break;
    case Form::mod_not_in: n.form = Form::mod_in; break;
    case Form::at_most: n.form = Form::above; break;
    case Form::at_least: n.form = Form::below; break;
    case Form::above: n.form = Form::at_most; break;
    case Form::below: n.form = Form::at_least; break;
  }
  return n;
}

std::string text(const Term& t, const std::string& p) {
  switch (t.form) {
    case Form::equal: return fmt::format("{} == {}", p, t.value);
    case Form::not_equal: return fmt::format("{} != {}", p, t.value);
    case Form::mod_equal: return fmt::format("{} % {} == {}", p, t.modulus, t.value);
    case Form::mod_not_equal: return fmt::format("{} % {} != {}", p, t.modulus, t.value);
    case Form::mod_in: return fmt::format("{} % {} in {}..{}", p, t.modulus, t.value, t.last);
    case Form::mod_not_in:
      return fmt::format("{} % {} not in {}..{}", p, t.modulus, t.value, t.last);
    case Form::at_most: return fmt::format("{} <= {}", p, t.value);
    case Form::at_least: return fmt::format("{} >= {}", p, t.value);
    case Form::above: return fmt::format("{} > {}", p, t.value);
    case Form::below: return fmt::format("{} < {}", p, t.value);
  }
  return {};
}

}  // namespace rules

using namespace rules;

RuleSearch::RuleSearch(const std::vector<PointProperties>& properties) {
  auto index = std::make_shared<Index>();
  index->points = properties.size();
  if (!properties.empty()) {
    for (const auto& [name, first_value] : properties.front()) {
      bool seen = false;
      for (const auto& c : index->columns) seen = seen || c.name == name;
      if (seen) continue;
      Column column;
      column.name = name;
      for (const auto& point : properties) {
        auto it = std::find_if(point.begin(), point.end(),
                               [&](const auto& p) { return p.first == column.name; });
        if (it == point.end()) break;
        column.values.push_back(it->second);
      }
      if (column.values.size() != properties.size()) continue;  // missing somewhere: unused
      index->columns.push_back(std::move(column));
    }
  }
  for (auto& c : index->columns) {
    c.by_value.resize(c.values.size());
    std::iota(c.by_value.begin(), c.by_value.end(), std::size_t{0});
    std::stable_sort(c.by_value.begin(), c.by_value.end(),
                     [&](std::size_t a, std::size_t b) { return c.values[a] < c.values[b]; });
    c.constant = c.values.empty() || c.values[c.by_value.front()] == c.values[c.by_value.back()];
    for (std::int64_t m : kModuli) {
      std::vector<Bits> classes(static_cast<std::size_t>(m), Bits(c.values.size()));
      for (std::size_t i = 0; i < c.values.size(); ++i) classes[residue(c.values[i], m)].set(i);
      c.residues.push_back(std::move(classes));
    }
  }
  index_ = std::move(index);
}

Rule RuleSearch::find(const std::vector<bool>& inside) const {
  if (inside.size() != index_->points) {
    throw std::invalid_argument(fmt::format("find_rule: {} points have properties, {} are given",
                                            index_->points, inside.size()));
  }
  return search_rule(*index_, inside);
}

Rule find_rule(const std::vector<PointProperties>& properties, const std::vector<bool>& inside) {
  return RuleSearch(properties).find(inside);
}

}  // namespace samebits
