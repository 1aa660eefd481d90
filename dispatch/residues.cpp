// Residue runs in rules: "N % 32 in 29..31" and "N % 32 not in 29..31", for the alignments kernels
// choose by (moduli 8 to 64), found from per-residue counts rather than by trying every run.
#include <algorithm>
#include <vector>

#include "dispatch/terms.h"

namespace samebits {
namespace rules {
namespace {

// Points of the set and of the rest at each residue of kModuli[m] in one column.
struct ResidueCounts {
  std::vector<std::int64_t> in, out;
};

ResidueCounts counts(const Target& t, const Column& column, std::size_t m) {
  ResidueCounts c;
  for (const Bits& members : column.residues[m]) {
    const std::int64_t in = members.count_and(t.in);
    c.in.push_back(in);
    c.out.push_back(members.count() - in);
  }
  return c;
}

// The tightest run a..b holding every residue that `occupied` marks; nothing when none or one is.
std::optional<std::pair<std::int64_t, std::int64_t>> span(
    const std::vector<std::int64_t>& occupied) {
  std::int64_t first = -1, last = -1;
  for (std::size_t r = 0; r < occupied.size(); ++r) {
    if (occupied[r] == 0) continue;
    if (first < 0) first = static_cast<std::int64_t>(r);
    last = static_cast<std::int64_t>(r);
  }
  if (first < 0 || first == last) return std::nullopt;
  return std::make_pair(first, last);
}

// Runs mod m say something a value range cannot only where the values span a period or more:
// within one period "N % 32 in 8..15" is "N >= 8 and N <= 15".
bool spans_a_period(const Column& column, std::int64_t modulus) {
  return column.values[column.by_value.back()] - column.values[column.by_value.front()] >= modulus;
}

bool empty_between(const std::vector<std::int64_t>& counts, std::int64_t first, std::int64_t last) {
  for (std::int64_t r = first; r <= last; ++r) {
    if (counts[r] != 0) return false;
  }
  return true;
}

}  // namespace

std::optional<Term> cheapest_exact_run(const Target& t, int budget) {
  for (std::size_t m = kRunModuli; m < std::size(kModuli); ++m) {
    const std::int64_t modulus = kModuli[m];
    if (cost({0, Form::mod_in, modulus, 0, 0}) >= budget) break;
    for (int c = 0; c < static_cast<int>(t.index.columns.size()); ++c) {
      const Column& column = t.index.columns[c];
      if (column.constant || !spans_a_period(column, modulus)) continue;
      const ResidueCounts n = counts(t, column, m);
      // "in a..b": the set's residues span a..b and the rest has none there; "not in a..b": the
      // same with the roles swapped. Where both hold, the narrower run reads more easily.
      std::optional<Term> in, not_in;
      if (const auto run = span(n.in); run && empty_between(n.out, run->first, run->second))
        in = Term{c, Form::mod_in, modulus, run->first, run->second};
      if (const auto gap = span(n.out); gap && empty_between(n.in, gap->first, gap->second))
        not_in = Term{c, Form::mod_not_in, modulus, gap->first, gap->second};
      const auto width = [](const Term& r) { return r.last - r.value; };
      if (in && not_in) return width(*not_in) < width(*in) ? not_in : in;
      if (in || not_in) return in ? in : not_in;  // the cheapest modulus, the earliest column
    }
  }
  return std::nullopt;
}

std::vector<Term> covering_runs(const Target& t) {
  std::vector<Term> terms;
  const auto points = static_cast<std::int64_t>(t.index.points);
  for (std::size_t m = kRunModuli; m < std::size(kModuli); ++m) {
    const std::int64_t modulus = kModuli[m];
    for (int c = 0; c < static_cast<int>(t.index.columns.size()); ++c) {
      const Column& column = t.index.columns[c];
      if (column.constant || !spans_a_period(column, modulus)) continue;
      const ResidueCounts n = counts(t, column, m);
      // "in a..b" over the set's span, when it leaves some points out.
      if (const auto run = span(n.in)) {
        std::int64_t kept = 0;
        for (std::int64_t r = run->first; r <= run->second; ++r) kept += n.in[r] + n.out[r];
        if (kept < points) terms.push_back({c, Form::mod_in, modulus, run->first, run->second});
      }
      // "not in a..b" over each stretch of residues the set never takes, trimmed to residues the
      // rest takes, when it holds more than one of them.
      std::int64_t r = 0;
      while (r < modulus) {
        if (n.in[r] != 0) {
          ++r;
          continue;
        }
        std::int64_t end = r;
        while (end + 1 < modulus && n.in[end + 1] == 0) ++end;
        std::int64_t first = r, last = end;
        while (first <= last && n.out[first] == 0) ++first;
        while (last >= first && n.out[last] == 0) --last;
        if (first < last) terms.push_back({c, Form::mod_not_in, modulus, first, last});
        r = end + 1;
      }
    }
  }
  return terms;
}

void agreeing_runs(const Target& t, const std::function<void(const Term&, std::int64_t)>& offer) {
  for (std::size_t m = kRunModuli; m < std::size(kModuli); ++m) {
    const std::int64_t modulus = kModuli[m];
    for (int c = 0; c < static_cast<int>(t.index.columns.size()); ++c) {
      const Column& column = t.index.columns[c];
      if (column.constant || !spans_a_period(column, modulus)) continue;
      const ResidueCounts n = counts(t, column, m);
      for (std::int64_t first = 0; first < modulus; ++first) {
        std::int64_t in = n.in[first], out = n.out[first];
        for (std::int64_t last = first + 1; last < modulus; ++last) {
          in += n.in[last], out += n.out[last];
          if (first == 0 && last == modulus - 1) continue;  // every residue: no term
          offer({c, Form::mod_in, modulus, first, last}, in + t.out_total - out);
          offer({c, Form::mod_not_in, modulus, first, last}, t.in_total - in + out);
        }
      }
    }
  }
}

}  // namespace rules
}  // namespace samebits
