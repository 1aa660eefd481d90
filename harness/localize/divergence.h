// Compares two recordings op by op on the item's rows, wherever they came from (the decoder here,
// a Python callable through a binding), and finds the first op whose item rows differ.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/localize/op_record.h"
#include "reports/model/report.h"

namespace samebits::localize {

// not_comparable: no output of the op holds the item's rows on both sides (weights, a padded
// batch in another form, shapes that disagree), and the runs differ in layout so digests say
// nothing. unmatched: the op ran on one side only.
enum class OpStatus { equal, differs, not_comparable, unmatched };
std::string to_string(OpStatus status);

struct OpComparison {
  std::optional<std::size_t> a, b;  // into each recording's ops
  OpStatus status = OpStatus::not_comparable;
  // Over the outputs that differ: the worst ULP distance of the item's rows (absent where a
  // non-finite pair differs or only the whole tensor's digest told), and the elements that differ.
  std::optional<std::uint64_t> max_ulp;
  std::int64_t mismatched = 0, compared = 0;
  std::string note;  // why not comparable, or "whole-tensor digests differ"
};

struct Localization {
  std::vector<OpComparison> ops;        // the top-level ops along the model, window by window
  std::optional<std::size_t> first;     // into ops: the first op whose item rows differ
  std::size_t first_output = 0;         // which of its outputs
  std::optional<DiffStats> first_diff;  // that output's item rows, bitwise, a against b
  std::size_t equal = 0, differs = 0, not_comparable = 0, unmatched_a = 0, unmatched_b = 0;
};

// One call of run b and the rows of a's item it stands for. A run of one call (the item alone
// against a batch) is one window over all the rows; a run of several (a prefill in chunks, a
// decode one token per step) is one window per call, its rows the next ones of a's.
struct Window {
  std::string call;                     // its ops' regions start "call/" (empty: not named)
  std::size_t begin = 0, end = 0;       // the call's ops: b.ops [begin, end)
  std::int64_t offset = 0, length = 0;  // a's item rows [offset, offset + length)
};

// The one window of two runs of one call each: all of b's ops, all of a's item rows.
std::vector<Window> one_call(const Recording& a, const Recording& b);

// Per window, in order, aligns a's top-level ops (depth 0; by name, overload and region, a call's
// name aside) with the window's and compares each aligned pair's outputs: the item's floating
// rows where both sides kept them (a's cut to the window's rows), bitwise; else, where b is one
// call sharing a's row map (the same batch twice), the whole tensors' digests, integers included;
// else not comparable. The first divergence is the first in (window, op) order.
Localization localize(const Recording& a, const Recording& b, const std::vector<Window>& windows);
// localize(a, b, one_call(a, b)).
Localization localize(const Recording& a, const Recording& b);

// The ops an op called, nested calls included, in completion order (aten::linear's aten::t,
// aten::matmul, aten::mm, ...): indices into r.ops.
std::vector<std::size_t> calls(const Recording& r, std::size_t op);
// The kernels an op and its calls launched, merged by name and shape, first-seen order.
std::vector<KernelLaunch> kernels_of(const Recording& r, std::size_t op);

}  // namespace samebits::localize
