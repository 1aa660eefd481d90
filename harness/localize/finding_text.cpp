// A Finding for the terminal (finding.h): what diverged first, on both sides, and what followed.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/localize/finding.h"

namespace samebits::localize {
namespace {

std::string side_line(const Side& s, std::size_t index, std::size_t output) {
  const OpRecord& op = s.recording.ops.at(index);
  std::string line = fmt::format("  {:>6}: {} in {}", s.name, full_name(op),
                                 op.region.empty() ? "(no region)" : op.region);
  if (output < op.outputs.size()) {
    const TensorMeta& m = op.outputs[output].meta;
    line += fmt::format(" -> {} [{}] strides [{}]", m.dtype, fmt::join(m.shape, ", "),
                        fmt::join(m.strides, ", "));
  }
  if (s.recording.kernels_captured) {
    std::vector<std::string> names;
    for (const auto& k : kernels_of(s.recording, index)) names.push_back(k.name);
    line += fmt::format("\n          kernels: {}", fmt::join(names, "; "));
  }
  return line + "\n";
}

}  // namespace

std::string rerun_line(const Rerun& r) {
  if (!r.why_not.empty()) return "rerun alone: no contract, " + r.why_not;
  if (r.command.empty()) return fmt::format("rerun alone: a {} contract can, not written", r.check);
  return fmt::format("rerun alone ({}): {}", r.check, r.command);
}

std::string summary_text(const Finding& f) {
  const Localization& l = f.result;
  std::string out = fmt::format(
      "localize {} vs {}: {} ({} ops equal, {} differ, {} not comparable, {} and {} unmatched)\n",
      f.a.name, f.b.name, verdict(f), l.equal, l.differs, l.not_comparable, l.unmatched_a,
      l.unmatched_b);
  if (l.first) {
    const OpComparison& c = l.ops[*l.first];
    out += fmt::format("first divergence: op {} of {}, output {}\n", *l.first, l.ops.size(),
                       l.first_output);
    out += side_line(f.a, *c.a, l.first_output);
    out += side_line(f.b, *c.b, l.first_output);
    if (l.first_diff) {
      std::vector<std::string> buckets;
      for (const auto& [label, n] : l.first_diff->ulp_histogram)
        if (n > 0) buckets.push_back(fmt::format("{}: {}", label, n));
      out += fmt::format(
          "  item rows: {} of {} elements differ, max ULP {}; ULP histogram {{{}}}{}\n",
          l.first_diff->mismatched, l.first_diff->numel,
          l.first_diff->max_ulp ? std::to_string(*l.first_diff->max_ulp) : "n/a",
          fmt::join(buckets, ", "),
          l.first_diff->nonfinite_mismatches > 0
              ? fmt::format(", {} NaN/inf mismatches", l.first_diff->nonfinite_mismatches)
              : "");
    } else if (!c.note.empty()) {
      out += fmt::format("  {}\n", c.note);
    }
    out += fmt::format("  later: {} more ops differ\n", l.differs - 1);
  }
  if (f.rerun) out += rerun_line(*f.rerun) + "\n";
  for (const auto& u : f.follow_ups) {
    out += fmt::format(
        "with samebits {} ({}): {}\n", u.replaced, u.mix,
        !u.first_op ? "the divergence disappears"
                    : fmt::format("first divergence {} at {} in {}", u.moved ? "moves on" : "stays",
                                  *u.first_op, *u.first_region));
  }
  out += fmt::format("recording: {:.1f} ms for the {} run", f.b.recording.wall_ms, f.b.name);
  if (f.plain_ms)
    out += fmt::format(", {:.1f} ms without the recorder ({:.1f}x)", *f.plain_ms,
                       *f.plain_ms > 0 ? f.b.recording.wall_ms / *f.plain_ms : 0.0);
  return out + "\n";
}

}  // namespace samebits::localize
