// Rows of [N] items batched as [B, N] for the selection ops (top-k, sort): laid out as a request
// says, padded with a value that sorts last, and selections split back into per-item outputs.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

#include "harness/op.h"

namespace samebits {

// A padding value that sorts after every real value: -inf for descending order, +inf ascending.
at::Scalar sorts_last(bool descending);

// The request's items' first inputs, in request order.
std::vector<at::Tensor> item_rows(const BatchRequest& request);

// The batch of rows laid out as the request says; padded layouts pad the end of each row with
// `fill`, which the caller's selection must never return.
at::Tensor laid_out_rows(const BatchRequest& request, const at::Scalar& fill);

// Splits [B, k] values and indices into per-item outputs, moving each row's indices back by
// where the item starts in its padded row (left padding; empty: all start at 0).
std::vector<Outputs> per_item(const at::Tensor& values, const at::Tensor& indices,
                              const std::vector<std::int64_t>& starts);

}  // namespace samebits
