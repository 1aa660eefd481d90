// A decorator for negative controls on real op adapters: it runs the wrapped op and then changes
// one element of every output on one side of one check kind, so that check must see a violation.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "harness/op.h"

namespace samebits {

// Wraps `inner` under its own name. Where the flaw applies, element 0 of every output changes by
// far more than any tolerance (floating: x + max(1, |x|), or 0 for a non-finite x; integers: +1):
//   determinism          every second run() (the repeat of a case's call)
//   batch_invariance     requests of more than one item (never the item alone)
//   position_invariance  the items after the first of a request
//   layout_invariance    requests with a layout other than contiguous
//   padding_invariance   padded or packed requests
//   chunking_invariance  chunked requests
//   equivalence          requests of any implementation but `against`
//   reference            every run() (never the float64 reference)
//   logprob_consistency  every run() (the decode path; never the training forward, score())
//   logprob_gradient_invariance  score()'s "logprobs" for more than one item (a constant element,
//                        so its gradient stops there)
// With `only_output`, that output alone changes (sdpa's "lse": a kernel whose log-sum-exp moves
// while its out keeps its bits); the others keep theirs.
std::unique_ptr<Op> make_planted_flaw(std::unique_ptr<Op> inner, CheckKind flaw,
                                      std::string against = "",
                                      std::optional<std::string> only_output = std::nullopt);

}  // namespace samebits
