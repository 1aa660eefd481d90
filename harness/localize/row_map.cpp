// Cutting an item's rows out of an op's output (row_map.h): one candidate dim or none, never a
// guess.
#include "harness/localize/row_map.h"

#include <fmt/format.h>

#include <vector>

namespace samebits::localize {
namespace {

std::vector<std::int64_t> dims_of_size(const at::Tensor& t, std::int64_t size, std::int64_t from) {
  std::vector<std::int64_t> out;
  for (std::int64_t d = from; d < t.dim(); ++d)
    if (t.size(d) == size) out.push_back(d);
  return out;
}

std::vector<std::int64_t> without_ones(at::IntArrayRef shape) {
  std::vector<std::int64_t> out;
  for (const auto s : shape)
    if (s != 1) out.push_back(s);
  return out;
}

ItemRows kept(const at::Tensor& t, std::int64_t dim) {
  return {t.detach().clone(at::MemoryFormat::Contiguous), {}, dim};
}

}  // namespace

RowMap whole_run(std::int64_t tokens) {
  RowMap m;
  m.tokens = tokens;
  m.length = tokens;
  m.padded_rows = tokens;
  return m;
}

ItemRows item_rows(const at::Tensor& t, const RowMap& map) {
  if (!t.defined() || t.numel() == 0) return {{}, "empty"};
  const auto packed = dims_of_size(t, map.tokens, 0);
  // The item alone with one token: every size-1 dim is a candidate, and every row its own.
  const bool whole = map.sequences == 1 && map.offset == 0 && map.length == map.tokens;
  if (whole && map.tokens == 1 && !packed.empty()) return kept(t, packed[0]);
  if (packed.size() == 1) return kept(t.narrow(packed[0], map.offset, map.length), packed[0]);
  if (packed.size() > 1)
    return {{},
            fmt::format("ambiguous: dims {} and {} both have the run's {} rows", packed[0],
                        packed[1], map.tokens)};
  if (map.sequences > 1 && map.padded_rows != map.tokens) {
    const auto batch = dims_of_size(t, map.sequences, 0);
    if (batch.size() == 1) {
      const auto rows = dims_of_size(t, map.padded_rows, batch[0] + 1);
      if (rows.size() == 1)
        return kept(t.select(batch[0], map.sequence).narrow(rows[0] - 1, 0, map.length),
                    rows[0] - 1);
    }
    if (batch.size() > 1)
      return {{},
              fmt::format("ambiguous: dims {} and {} both have the batch's {} sequences", batch[0],
                          batch[1], map.sequences)};
  }
  return {{}, fmt::format("no dim of the run's {} rows", map.tokens)};
}

bool same_rows_shape(const at::Tensor& a, const at::Tensor& b) {
  return a.scalar_type() == b.scalar_type() && without_ones(a.sizes()) == without_ones(b.sizes());
}

}  // namespace samebits::localize
