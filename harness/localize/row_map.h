// Where one item's rows lie in a run's tensors, and the item's rows cut out of an op's output: the
// packed token dim, or a padded [sequences, rows] pair of dims. Anything else is not comparable.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <string>

namespace samebits::localize {

struct RowMap {
  std::int64_t tokens = 0;                   // the run's packed rows
  std::int64_t offset = 0, length = 0;       // the item's packed rows [offset, offset + length)
  std::int64_t sequences = 1, sequence = 0;  // a padded layout's batch and the item's index in it
  std::int64_t padded_rows = 0;              // a padded layout's rows per sequence
};

// The map of a run that is the item alone: every row is the item's.
RowMap whole_run(std::int64_t tokens);

struct ItemRows {
  at::Tensor rows;        // a detached copy; undefined when the output holds no item rows
  std::string not_kept;   // why not: "no dim of the run's 40 tokens", "dims 0 and 2 both ..."
  std::int64_t dim = -1;  // the dim of rows the item's rows run along, where kept
};

// The item's rows of t: where the run is one token of the item alone, all of t if a dim has size
// 1; narrowed along the one dim of size map.tokens; else, where the run is a batch, the item's
// sequence of the one dim of size map.sequences followed by the one dim of size map.padded_rows,
// its first map.length rows. Two candidate dims make it ambiguous: not kept.
ItemRows item_rows(const at::Tensor& t, const RowMap& map);

// Whether two item-row tensors hold the same elements in the same order: equal shapes once their
// size-1 dims are dropped (an alone run's [1, H, L, d] against a batch's [H, L, d]).
bool same_rows_shape(const at::Tensor& a, const at::Tensor& b);

}  // namespace samebits::localize
