// A test-only op for negative controls: one implementation keeps every contract, and each of the
// others breaks exactly one check kind on purpose, so every "holds" verdict is shown able to fail.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/op.h"

namespace samebits {

// Implementation names of the control op.
inline constexpr const char* kInvariantImpl = "invariant";

// One implementation that breaks one check kind, and how.
struct ControlViolator {
  std::string impl;
  CheckKind breaks;
  std::string how;
};

// Every violator, one per check kind, in the order of check_kind_names().
const std::vector<ControlViolator>& control_violators();
// "invariant" followed by every violator.
std::vector<std::string> control_impl_names();

// What a control op accepts; a narrower variant (fewer checks, layouts or paddings) lets the
// planner's "does not take" errors be tested.
struct ControlOpOptions {
  std::string name = "control";
  std::vector<CheckKind> checks = {CheckKind::determinism,         CheckKind::batch_invariance,
                                   CheckKind::position_invariance, CheckKind::layout_invariance,
                                   CheckKind::padding_invariance,  CheckKind::chunking_invariance,
                                   CheckKind::equivalence,         CheckKind::reference};
  std::vector<LayoutKind> layouts = {LayoutKind::strided, LayoutKind::offset, LayoutKind::padded};
  std::vector<PaddingMode> paddings = {PaddingMode::right, PaddingMode::left, PaddingMode::packed};
};

// Item: a float32 [rows, L] tensor. Outputs: "prefix", the running sums along L accumulated in a
// fixed sequential order, and "head", the sum of each row's first k values. Axes: L (required),
// rows (2), k (1), dtype (float32; others are skipped as unsupported), generator (exact).
std::unique_ptr<Op> make_control_op(ControlOpOptions options = {});

}  // namespace samebits
