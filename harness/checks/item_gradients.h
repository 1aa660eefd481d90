// The gradients of each item's inputs under one call of the op, for fixed upstream gradients: what
// the gradient kinds compare in place of the op's outputs, so the diff and the report apply as is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/checks/case_context.h"
#include "harness/checks/check.h"

namespace samebits {

// Runs `request` once in grad mode with every floating input of every item a fresh leaf (the same
// values, strides and device), pairs each differentiable output of item k with an upstream
// gradient drawn from the case seed and `indices[k]` alone (the index the item was drawn from:
// never its batch, size or place), and backpropagates sum <out, g> over the whole call once.
// Returns, per item in request order, "grad:<n>" for its n-th input where that is floating.
// Floating shared tensors (weights) are leaves too, so the backward is the one training runs, but
// their gradients sum over the batch and are not returned. The check's `compare.outputs`, where
// given, names the outputs that take an upstream gradient. Throws Unsupported where nothing is
// differentiable: "implementation <impl> has no backward" (the samebits kernels), or no floating
// output. Kernel capture tags the forward calls only (the backward runs on autograd's threads).
std::vector<Outputs> item_gradients(CaseContext& c, const BatchRequest& request,
                                    const std::vector<std::int64_t>& indices, Side side);

// The indices of `n` items drawn as 0..n-1 (CaseContext::items, call_items).
std::vector<std::int64_t> first_indices(std::size_t n);

// Why `op`'s items at `point` have no floating input to differentiate (made once on the CPU), or
// nothing; `kind` names the check in the message, which lists the kinds the op takes.
std::optional<std::string> no_floating_input(const Op& op, const Point& point, CheckKind kind);

// A kind that compares the items' input gradients (item_gradients): it takes any op whose items
// have a floating input, listed in Op::checks() or not.
class GradientCheck : public Check {
 public:
  bool differentiates() const override { return true; }
  std::optional<std::string> refuses(const Op& op, const Point& point) const override {
    return no_floating_input(op, point, kind());
  }
};

}  // namespace samebits
