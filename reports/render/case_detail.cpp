// One case's diff in the terminal (`samebits show`, and `run --case` for the case it reran): how
// many elements differ, the ULP histogram and the first mismatches with both values in hex.
#include "reports/render/case_detail.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "reports/render/check_headline.h"

namespace samebits {
namespace {

std::string index_text(const std::vector<std::int64_t>& index) {
  return fmt::format("[{}]", fmt::join(index, ", "));
}

// The histogram as bars scaled to the largest bucket: "  1 ULP      12 ############".
std::string histogram_text(const DiffStats& d) {
  if (d.ulp_histogram.empty()) return "";
  std::int64_t most = 1;
  std::size_t label = 0;
  for (const auto& [bucket, count] : d.ulp_histogram) {
    most = std::max(most, count);
    label = std::max(label, bucket.size());
  }
  std::string out = "    ULP histogram:\n";
  for (const auto& [bucket, count] : d.ulp_histogram) {
    const auto width = static_cast<std::size_t>((count * 40 + most - 1) / most);
    out += fmt::format("      {:<{}}  {:>10}  {}\n", bucket, label, count, std::string(width, '#'));
  }
  return out;
}

std::string output_text(const OutputResult& o) {
  const DiffStats& d = o.diff;
  std::string out = fmt::format("  output {} ({} {}, {} compare{}): {} of {} elements differ",
                                o.name, d.dtype, index_text(d.shape), to_string(d.mode),
                                d.tolerance.empty() ? "" : ", " + d.tolerance, d.mismatched,
                                d.numel);
  if (d.max_ulp) out += fmt::format(", max {} ULP", *d.max_ulp);
  if (d.max_abs_error > 0) out += fmt::format(", max abs error {:.6g}", d.max_abs_error);
  if (d.nonfinite_mismatches > 0) out += fmt::format(", {} non-finite", d.nonfinite_mismatches);
  out += d.within ? "\n" : " (over the contract's budget)\n";
  out += fmt::format("    digests: {} (baseline), {} (variant)\n", o.baseline_sha256,
                     o.variant_sha256);
  if (d.mismatched == 0) return out;
  out += histogram_text(d);
  if (d.first_mismatches.empty()) return out;
  out += fmt::format("    first {} mismatches (index: baseline vs variant, bits, ULP):\n",
                     d.first_mismatches.size());
  for (const Mismatch& m : d.first_mismatches) {
    out += fmt::format("      {}: {:.9g} vs {:.9g}  {} vs {}  {}\n", index_text(m.index),
                       m.baseline, m.variant, m.baseline_bits, m.variant_bits,
                       m.ulp ? fmt::format("{} ULP", *m.ulp) : std::string("ULP n/a"));
  }
  return out;
}

}  // namespace

std::string case_detail_text(const CaseResult& c, const std::string& report_path, bool color) {
  const auto paint = [&](const char* code, const std::string& text) {
    return color ? code + text + "\033[0m" : text;
  };
  const char* verdict_colour =
      c.verdict == Verdict::holds ? "\033[32m" : c.verdict == Verdict::skipped ? "" : "\033[1;31m";
  std::string out = paint("\033[1m", c.id) + "\n";
  out += fmt::format("  verdict {} (expected {}), {} ms\n", paint(verdict_colour, to_string(c.verdict)),
                     to_string(c.expected), c.duration_ms);
  if (!c.params.empty()) out += fmt::format("  params: {}\n", params_text(c.params));
  if (!c.baseline.empty()) out += fmt::format("  baseline: {}\n  variant:  {}\n", c.baseline, c.variant);
  if (!c.reason.empty()) out += fmt::format("  reason: {}\n", c.reason);
  for (const auto& o : c.outputs) out += output_text(o);
  out += paint("\033[2m", "  rerun: " + rerun_command(report_path, c.id)) + "\n";
  return out;
}

}  // namespace samebits
