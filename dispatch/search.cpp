// The search behind find_rule: the cheapest exact term; else the cheapest exact pair of terms
// ("and" over the set, or "or" through "and" over the rest); else the term agreeing most often.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "dispatch/terms.h"

namespace samebits {
namespace rules {
namespace {

constexpr int kAnyCost = 1 << 20;

Target complement(const Target& t) {
  return {t.index, ~t.in, t.out_total, t.in_total};
}

std::size_t points(const Target& t) {
  return t.index.points;
}

// The value every point of the set (or of the rest) shares, if one does.
std::optional<std::int64_t> shared_value(const Target& t, const Column& c, bool of_set) {
  std::optional<std::int64_t> value;
  for (std::size_t i = 0; i < points(t); ++i) {
    if (t.in.test(i) != of_set) continue;
    if (value && *value != c.values[i]) return std::nullopt;
    value = c.values[i];
  }
  return value;
}

// Whether some point of the set (or of the rest) has value v.
bool has_value(const Target& t, const Column& c, bool of_set, std::int64_t v) {
  for (std::size_t i = 0; i < points(t); ++i) {
    if (t.in.test(i) == of_set && c.values[i] == v) return true;
  }
  return false;
}

struct Extremes {
  static constexpr std::int64_t kLowest = std::numeric_limits<std::int64_t>::min();
  static constexpr std::int64_t kHighest = std::numeric_limits<std::int64_t>::max();
  std::int64_t min_in = kHighest, max_in = kLowest, min_out = kHighest, max_out = kLowest;
};
Extremes extremes(const Target& t, const Column& c) {
  Extremes e;
  for (std::size_t i = 0; i < points(t); ++i) {
    const std::int64_t v = c.values[i];
    if (t.in.test(i)) {
      e.min_in = std::min(e.min_in, v), e.max_in = std::max(e.max_in, v);
    } else {
      e.min_out = std::min(e.min_out, v), e.max_out = std::max(e.max_out, v);
    }
  }
  return e;
}

Bits bits_of(const Target& t, const Term& term) {
  const Column& c = t.index.columns[term.column];
  if (term.form == Form::mod_equal || term.form == Form::mod_not_equal) {
    const Bits& members =
        c.residues[modulus_index(term.modulus)][static_cast<std::size_t>(term.value)];
    return term.form == Form::mod_equal ? members : ~members;
  }
  if (term.form == Form::mod_in || term.form == Form::mod_not_in) {
    const Bits members = run_members(c, modulus_index(term.modulus), term.value, term.last);
    return term.form == Form::mod_in ? members : ~members;
  }
  Bits b(points(t));
  for (std::size_t i = 0; i < points(t); ++i) {
    if (holds(term, c.values[i])) b.set(i);
  }
  return b;
}

int columns(const Target& t) {
  return static_cast<int>(t.index.columns.size());
}

// The cheapest one-term rule (the earliest of equal cost) holding at exactly the set, if one
// costs less than `budget`.
std::optional<Term> cheapest_exact_term(const Target& t, int budget) {
  std::optional<Term> best;
  auto offer = [&](const Term& term) {
    if (cost(term) < budget) best = term, budget = cost(term);
  };
  for (bool of_set : {true, false}) {  // "P == v", then "P != v"
    for (int c = 0; c < columns(t); ++c) {
      const Column& column = t.index.columns[c];
      if (column.constant) continue;
      const auto v = shared_value(t, column, of_set);
      if (v && !has_value(t, column, !of_set, *v)) {
        offer({c, of_set ? Form::equal : Form::not_equal, 0, *v});
      }
    }
  }
  for (std::size_t m = 0; m < std::size(kModuli); ++m) {
    if (cost({0, Form::mod_equal, kModuli[m], 0}) >= budget) break;
    for (int c = 0; c < columns(t); ++c) {
      const Column& column = t.index.columns[c];
      if (column.constant) continue;
      for (std::int64_t r = 0; r < kModuli[m]; ++r) {
        const Bits& members = column.residues[m][static_cast<std::size_t>(r)];
        const std::int64_t in_r = members.count_and(t.in), all_r = members.count();
        if (in_r == t.in_total && all_r == in_r) offer({c, Form::mod_equal, kModuli[m], r});
      }
      if (kModuli[m] == 2) continue;  // "% 2 != r" is "% 2 == 1 - r"
      for (std::int64_t r = 0; r < kModuli[m]; ++r) {
        const Bits& members = column.residues[m][static_cast<std::size_t>(r)];
        if (members.count_and(t.in) == 0 && members.count() == t.out_total) {
          offer({c, Form::mod_not_equal, kModuli[m], r});
        }
      }
    }
  }
  if (auto run = cheapest_exact_run(t, budget)) offer(*run);
  for (int c = 0; c < columns(t); ++c) {
    if (t.index.columns[c].constant) continue;
    const Extremes e = extremes(t, t.index.columns[c]);
    if (e.max_in < e.min_out) offer({c, Form::at_most, 0, roundest(e.max_in, e.min_out - 1)});
    if (e.min_in > e.max_out) offer({c, Form::at_least, 0, roundest(e.max_out + 1, e.min_in)});
  }
  return best;
}

struct Candidate {
  Term term;
  Bits bits;
};

// Terms holding at every point of the set and at some but not all others, cheapest first: the
// halves of two-term rules. Thresholds at their tightest (a looser one pairs with nothing more);
// "P != v" halves are found separately (not_equal_partner).
std::vector<Candidate> covering_terms(const Target& t) {
  std::vector<Term> terms;
  for (int c = 0; c < columns(t); ++c) {
    if (t.index.columns[c].constant) continue;
    if (auto v = shared_value(t, t.index.columns[c], true))
      terms.push_back({c, Form::equal, 0, *v});
  }
  for (std::size_t m = 0; m < std::size(kModuli); ++m) {
    for (int c = 0; c < columns(t); ++c) {
      const Column& column = t.index.columns[c];
      if (column.constant) continue;
      for (std::int64_t r = 0; r < kModuli[m]; ++r) {
        const Bits& members = column.residues[m][static_cast<std::size_t>(r)];
        const std::int64_t in_r = members.count_and(t.in), all_r = members.count();
        if (in_r == t.in_total && all_r < static_cast<std::int64_t>(points(t))) {
          terms.push_back({c, Form::mod_equal, kModuli[m], r});
        }
        if (kModuli[m] > 2 && in_r == 0 && all_r > 0) {
          terms.push_back({c, Form::mod_not_equal, kModuli[m], r});
        }
      }
    }
  }
  for (const Term& run : covering_runs(t)) terms.push_back(run);
  for (int c = 0; c < columns(t); ++c) {
    if (t.index.columns[c].constant) continue;
    const Extremes e = extremes(t, t.index.columns[c]);
    if (e.max_out > e.max_in) terms.push_back({c, Form::at_most, 0, e.max_in});
    if (e.min_out < e.min_in) terms.push_back({c, Form::at_least, 0, e.min_in});
  }
  std::stable_sort(terms.begin(), terms.end(),
                   [](const Term& a, const Term& b) { return cost(a) < cost(b); });
  std::vector<Candidate> candidates;
  for (const Term& term : terms) candidates.push_back({term, bits_of(t, term)});
  return candidates;
}

// "P != v" that, joined to a covering term, leaves exactly the set: the points the term adds to
// the set share one value v, which no point of the set has.
std::optional<Term> not_equal_partner(const Target& t, const Bits& first) {
  const Bits extra = first & ~t.in;
  std::vector<std::optional<std::int64_t>> value(t.index.columns.size());
  std::vector<bool> single(t.index.columns.size());
  for (int c = 0; c < columns(t); ++c) single[c] = !t.index.columns[c].constant;
  for (std::size_t i = 0; i < points(t); ++i) {
    if (!extra.test(i)) continue;
    bool any = false;
    for (int c = 0; c < columns(t); ++c) {
      if (!single[c]) continue;
      const std::int64_t v = t.index.columns[c].values[i];
      if (value[c] && *value[c] != v) single[c] = false;
      value[c] = v;
      any = any || single[c];
    }
    if (!any) return std::nullopt;
  }
  for (int c = 0; c < columns(t); ++c) {
    if (single[c] && value[c] && !has_value(t, t.index.columns[c], true, *value[c])) {
      return Term{c, Form::not_equal, 0, *value[c]};
    }
  }
  return std::nullopt;
}

struct Pair {
  Term first, second;
  Bits first_bits, second_bits;
  int cost = 0;
};

// The cheapest "A and B" holding at exactly the set, if one costs less than `budget`.
std::optional<Pair> cheapest_pair(const Target& t, int budget) {
  const std::vector<Candidate> candidates = covering_terms(t);
  std::optional<Pair> best;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& a = candidates[i];
    if (cost(a.term) + 1 >= budget) break;  // cheapest first: nothing cheaper follows
    for (std::size_t j = i + 1; j < candidates.size(); ++j) {
      const Candidate& b = candidates[j];
      if (cost(a.term) + cost(b.term) >= budget) break;
      if (a.bits.and_count_is(b.bits, t.in_total)) {
        budget = cost(a.term) + cost(b.term);
        best = Pair{a.term, b.term, a.bits, b.bits, budget};
        break;
      }
    }
    if (cost(a.term) + 3 < budget) {
      if (auto partner = not_equal_partner(t, a.bits)) {
        budget = cost(a.term) + cost(*partner);
        best = Pair{a.term, *partner, a.bits, bits_of(t, *partner), budget};
      }
    }
  }
  return best;
}

// A threshold of a pair moved to the roundest value that still turns away every point the other
// term keeps outside the set: "N % 4 != 0 and N >= 256" rather than "... N >= 257".
Term widened(const Target& t, Term term, const Bits& other) {
  if (term.form != Form::at_most && term.form != Form::at_least) return term;
  const Column& c = t.index.columns[term.column];
  std::optional<std::int64_t> bound;
  for (std::size_t i = 0; i < points(t); ++i) {
    if (!other.test(i) || t.in.test(i)) continue;
    const std::int64_t v = c.values[i];
    bound = !bound ? v : term.form == Form::at_least ? std::max(*bound, v) : std::min(*bound, v);
  }
  if (!bound) return term;
  term.value = term.form == Form::at_least ? roundest(*bound + 1, term.value)
                                           : roundest(term.value, *bound - 1);
  return term;
}

// Both terms widened; a range on one property lower bound first.
std::pair<Term, Term> finished(const Target& t, const Pair& p) {
  Term first = widened(t, p.first, p.second_bits), second = widened(t, p.second, p.first_bits);
  if (first.column == second.column && first.form == Form::at_most &&
      second.form == Form::at_least) {
    std::swap(first, second);
  }
  return {first, second};
}

struct Scored {
  std::optional<Term> term;
  std::int64_t matched = -1;
};

// The one-term rule agreeing with the set at the most points (the earliest of equal agreement).
Scored best_agreeing_term(const Target& t) {
  Scored best;
  auto offer = [&](const Term& term, std::int64_t matched) {
    if (matched > best.matched) best = {term, matched};
  };
  // Per column, runs of equal values in ascending order: (value, set points, other points).
  std::vector<std::vector<std::array<std::int64_t, 3>>> runs(t.index.columns.size());
  for (int c = 0; c < columns(t); ++c) {
    const Column& column = t.index.columns[c];
    for (std::size_t i : column.by_value) {
      const std::int64_t v = column.values[i];
      if (runs[c].empty() || runs[c].back()[0] != v) runs[c].push_back({v, 0, 0});
      ++runs[c].back()[t.in.test(i) ? 1 : 2];
    }
  }
  for (bool equal : {true, false}) {
    for (int c = 0; c < columns(t); ++c) {
      for (const auto& [v, in, out] : runs[c]) {
        offer({c, equal ? Form::equal : Form::not_equal, 0, v},
              equal ? in + (t.out_total - out) : (t.in_total - in) + out);
      }
    }
  }
  for (std::size_t m = 0; m < std::size(kModuli); ++m) {
    for (int c = 0; c < columns(t); ++c) {
      const Column& column = t.index.columns[c];
      for (std::int64_t r = 0; r < kModuli[m]; ++r) {
        const Bits& members = column.residues[m][static_cast<std::size_t>(r)];
        const std::int64_t in_r = members.count_and(t.in), out_r = members.count() - in_r;
        offer({c, Form::mod_equal, kModuli[m], r}, in_r + t.out_total - out_r);
        if (kModuli[m] > 2)
          offer({c, Form::mod_not_equal, kModuli[m], r}, t.in_total - in_r + out_r);
      }
    }
  }
  agreeing_runs(t, offer);
  for (int c = 0; c < columns(t); ++c) {
    std::int64_t in_below = 0, out_below = 0;  // points with smaller values
    for (const auto& [v, in, out] : runs[c]) {
      offer({c, Form::at_least, 0, v}, (t.in_total - in_below) + out_below);
      in_below += in, out_below += out;
      offer({c, Form::at_most, 0, v}, in_below + (t.out_total - out_below));
    }
  }
  return best;
}

std::string joined(const Target& t, const Term& a, const char* word, const Term& b) {
  return text(a, t.index.columns[a.column].name) + word + text(b, t.index.columns[b.column].name);
}

}  // namespace
}  // namespace rules

using namespace rules;

Rule search_rule(const RuleSearch::Index& index, const std::vector<bool>& inside) {
  Target t{index, Bits(index.points)};
  for (std::size_t i = 0; i < inside.size(); ++i) {
    if (inside[i]) t.in.set(i), ++t.in_total;
  }
  const auto considered = static_cast<std::int64_t>(index.points);
  t.out_total = considered - t.in_total;
  if (t.out_total == 0)
    return {considered == 0 ? "no points" : "all points", true, considered, considered};
  if (t.in_total == 0) return {"no points", true, considered, considered};

  if (auto term = cheapest_exact_term(t, kAnyCost)) {
    return {text(*term, index.columns[term->column].name), true, considered, considered};
  }
  const auto all = cheapest_pair(t, kAnyCost);
  const Target rest = complement(t);
  if (const auto any = cheapest_pair(rest, all ? all->cost : kAnyCost)) {
    const auto [first, second] = finished(rest, *any);
    return {joined(t, negated(first), " or ", negated(second)), true, considered, considered};
  }
  if (all) {
    const auto [first, second] = finished(t, *all);
    return {joined(t, first, " and ", second), true, considered, considered};
  }
  const Scored best = best_agreeing_term(t);
  const std::int64_t trivial_errors = std::min(t.in_total, t.out_total);
  if (!best.term || 2 * (considered - best.matched) > trivial_errors) {
    return {"no simple rule", false, 0, considered};
  }
  return {text(*best.term, index.columns[best.term->column].name), false, best.matched, considered};
}

}  // namespace samebits
