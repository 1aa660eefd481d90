// The invariant reduction through its torch binding: 16-bit inputs read exactly, and any dim of any
// layout gives the contiguous case's bits (the twin alone: invariant_reduce_twin_test.cpp).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <vector>

#include "kernels/reduce/binding.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace invariant_reduce_test_file {}
using namespace invariant_reduce_test_file;
namespace invariant_reduce_test_file {

TEST(InvariantReduceTwin, SixteenBitInputsReadExactly) {
  const at::Tensor x = at::randn({3, 777}).mul(100);
  for (const auto dtype : {at::kHalf, at::kBFloat16}) {
    const at::Tensor narrow = x.to(dtype);
    const at::Tensor ours = invariant_reduce(narrow, 1, false);
    const at::Tensor widened = invariant_reduce(narrow.to(at::kFloat), 1, false);
    EXPECT_TRUE(at::equal(ours.view(at::kInt), widened.view(at::kInt))) << dtype;
  }
}

TEST(InvariantReduceBinding, ReducesAnyDimOfAnyLayout) {
  const at::Tensor x = at::randn({4, 300, 6}).mul(at::randn({4, 300, 6}).mul(8).exp2());
  const at::Tensor base = invariant_reduce(x, 1, false);
  EXPECT_EQ(base.sizes(), (std::vector<std::int64_t>{4, 6}));
  EXPECT_TRUE(at::equal(invariant_reduce(x.permute({2, 0, 1}), 2, false).t().view(at::kInt),
                        base.view(at::kInt)))
      << "a permuted view";
  EXPECT_TRUE(
      at::equal(invariant_reduce(x.contiguous(), 1, false).view(at::kInt), base.view(at::kInt)));
  EXPECT_THROW(invariant_reduce(x.to(at::kDouble), 1, false), c10::Error);
}

}  // namespace invariant_reduce_test_file
}  // namespace samebits
