// What the indexer's score kernels need to guard an item's keys (kernels/common/row_guard.h): the
// keys' rows and the launch's max_length, passed by value so that no kernel trusts the offsets.
#pragma once

#include <cstdint>

#include "kernels/common/row_guard.h"
#include "kernels/indexer/invariant_indexer.h"

namespace samebits::kernels {

struct ItemBounds {
  std::int64_t total;  // keys' rows (negative: not known)
  std::int64_t max_length;
  bool guarded;
};

inline ItemBounds item_bounds(const IndexerProblem& p) {
  return {p.total_keys, p.max_length, !p.unguarded_for_tests};
}

}  // namespace samebits::kernels
