// The oracle every top-k test compares with: the first k of ATen's stable descending sort, and a
// comparison that prints the first differing slot with both values, hex bits and both indices.
#pragma once

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <tuple>

#include "tests/support/tensor_bits.h"

namespace samebits {

// Rows of x ([R, N]) sorted stable and descending, first k: (values, indices).
inline std::tuple<at::Tensor, at::Tensor> stable_sort_topk(const at::Tensor& x, std::int64_t k) {
  auto [values, indices] = at::sort(x, /*stable=*/true, /*dim=*/-1, /*descending=*/true);
  return {values.narrow(-1, 0, k), indices.narrow(-1, 0, k)};
}

// Equal bits and equal indices, slot for slot; else the first differing slot, described.
inline ::testing::AssertionResult same_selection(const at::Tensor& expected_values,
                                                 const at::Tensor& expected_indices,
                                                 const at::Tensor& values,
                                                 const at::Tensor& indices) {
  const at::Tensor ev = expected_values.cpu().contiguous().view(-1);
  const at::Tensor ei = expected_indices.cpu().contiguous().view(-1);
  const at::Tensor v = values.cpu().contiguous().view(-1);
  const at::Tensor i = indices.cpu().contiguous().view(-1);
  if (ev.sizes() != v.sizes() || ei.sizes() != i.sizes()) {
    return ::testing::AssertionFailure()
           << "shapes differ: expected " << expected_values.sizes() << ", got " << values.sizes();
  }
  const auto* expected_index = ei.const_data_ptr<std::int64_t>();
  const auto* index = i.const_data_ptr<std::int64_t>();
  std::int64_t mismatched = 0, first = -1;
  for (std::int64_t s = 0; s < ev.numel(); ++s) {
    if (bits_of(ev, s) != bits_of(v, s) || expected_index[s] != index[s]) {
      if (first < 0) first = s;
      ++mismatched;
    }
  }
  if (mismatched == 0) return ::testing::AssertionSuccess();
  std::ostringstream out;
  out << mismatched << " of " << ev.numel() << " slots differ; first at slot " << first
      << ": expected index " << expected_index[first] << " value "
      << ev[first].to(at::kDouble).item<double>() << " (0x" << std::hex << bits_of(ev, first)
      << std::dec << "), got index " << index[first] << " value "
      << v[first].to(at::kDouble).item<double>() << " (0x" << std::hex << bits_of(v, first) << ")";
  return ::testing::AssertionFailure() << out.str();
}

}  // namespace samebits
