// Lines up two runs' op sequences by name and nesting depth: the longest common subsequence, so
// extra ops on one side (a batch's gathers and pads) are left unmatched instead of shifting the
// rest.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace samebits::localize {

struct AlignedPair {
  std::optional<std::size_t> a, b;  // indices into each side; one empty for an unmatched op
};

// keys: one string per op per side (name and depth). In order along both sequences; unmatched
// ops of a side come where they fell between matched ones, side a's first.
std::vector<AlignedPair> align(const std::vector<std::string>& a,
                               const std::vector<std::string>& b);

}  // namespace samebits::localize
