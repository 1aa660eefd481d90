// Rows of [N] items batched as [B, N] for the selection ops (top-k, sort): laid out as a request
// says, padded with a value that sorts last, and selections split back into per-item outputs.
#include "harness/ops/row_batch.h"

#include <limits>

#include "cases/layout.h"

namespace samebits {

at::Scalar sorts_last(bool descending) {
  const double inf = std::numeric_limits<double>::infinity();
  return descending ? -inf : inf;
}

std::vector<at::Tensor> item_rows(const BatchRequest& r) {
  std::vector<at::Tensor> rows;
  for (const Item* item : r.items) rows.push_back(item->inputs.at(0));
  return rows;
}

at::Tensor laid_out_rows(const BatchRequest& r, const at::Scalar& fill) {
  const at::Tensor batch = at::stack(item_rows(r));
  if (r.layout.kind == LayoutKind::padded) return pad_to_multiple(batch, r.layout.amount, 1, fill);
  return place(batch, r.layout, 1);
}

std::vector<Outputs> per_item(const at::Tensor& values, const at::Tensor& indices,
                              const std::vector<std::int64_t>& starts) {
  std::vector<Outputs> out;
  for (std::int64_t b = 0; b < values.size(0); ++b) {
    const std::int64_t start = starts.empty() ? 0 : starts[static_cast<std::size_t>(b)];
    out.push_back({{"values", values[b]}, {"indices", start ? indices[b] - start : indices[b]}});
  }
  return out;
}

}  // namespace samebits
