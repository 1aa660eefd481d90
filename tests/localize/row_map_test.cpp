// The row map: the item's rows cut out of the packed token dim or a padded [sequences, rows] pair;
// an output with no such dim, or two candidates, is not kept, with the reason.
#include "harness/localize/row_map.h"

#include <gtest/gtest.h>

namespace samebits::localize {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace row_map_test_file {}
using namespace row_map_test_file;
namespace row_map_test_file {

// A batch of 3 sequences of 4, 5 and 2 tokens (11 packed rows, 5 padded rows each); the item is
// the second.
RowMap batch_map() {
  // tokens, offset, length, sequences, sequence, padded_rows
  return {11, 4, 5, 3, 1, 5};
}

TEST(RowMap, PackedRowsAreNarrowedCopies) {
  const at::Tensor t = at::arange(11 * 6, at::kFloat).view({11, 6});
  const ItemRows r = item_rows(t.t(), batch_map());  // the token dim second, strided
  ASSERT_TRUE(r.rows.defined()) << r.not_kept;
  EXPECT_TRUE(at::equal(r.rows, t.narrow(0, 4, 5).t()));
  EXPECT_TRUE(r.rows.is_contiguous());
}

TEST(RowMap, PaddedRowsComeFromTheItemsSequence) {
  const at::Tensor t = at::arange(3 * 2 * 5 * 4, at::kFloat).view({3, 2, 5, 4});  // [B, H, Q, d]
  const ItemRows r = item_rows(t, batch_map());
  ASSERT_TRUE(r.rows.defined()) << r.not_kept;
  EXPECT_TRUE(at::equal(r.rows, t.select(0, 1).narrow(1, 0, 5)));
  // The alone run's [1, H, 5, d] holds the same elements in the same order.
  EXPECT_TRUE(same_rows_shape(item_rows(t.narrow(0, 1, 1), whole_run(5)).rows, r.rows));
}

TEST(RowMap, AnOutputWithoutTheItemsRowsIsNotKept) {
  const ItemRows weight = item_rows(at::ones({6, 7}), batch_map());
  EXPECT_FALSE(weight.rows.defined());
  EXPECT_EQ(weight.not_kept, "no dim of the run's 11 rows");
  const ItemRows scores = item_rows(at::ones({11, 11}), batch_map());
  EXPECT_FALSE(scores.rows.defined());
  EXPECT_EQ(scores.not_kept, "ambiguous: dims 0 and 1 both have the run's 11 rows");
  const ItemRows heads = item_rows(at::ones({3, 3, 5}), batch_map());
  EXPECT_FALSE(heads.rows.defined());
  EXPECT_NE(heads.not_kept.find("ambiguous"), std::string::npos) << heads.not_kept;
}

// A decode step: the batch's one row per sequence is packed and padded at once; alone, the one
// token's tensors are kept whole, size-1 dims and all.
TEST(RowMap, ADecodeStepsRowIsItsSequences) {
  const RowMap decode{3, 1, 1, 3, 1, 1};
  const at::Tensor t = at::arange(3 * 2 * 4, at::kFloat).view({3, 2, 1, 4});  // [B, H, 1, d]
  const ItemRows r = item_rows(t, decode);
  ASSERT_TRUE(r.rows.defined()) << r.not_kept;
  EXPECT_TRUE(at::equal(r.rows, t.narrow(0, 1, 1)));
  const ItemRows alone = item_rows(t.narrow(0, 1, 1), whole_run(1));
  ASSERT_TRUE(alone.rows.defined()) << alone.not_kept;
  EXPECT_TRUE(same_rows_shape(alone.rows, r.rows));
  EXPECT_FALSE(item_rows(at::ones({4, 2}), whole_run(1)).rows.defined());
}

TEST(RowMap, RowsOfAnotherShapeAreNotTheSame) {
  EXPECT_FALSE(same_rows_shape(at::ones({5, 4}), at::ones({4, 5})));
  EXPECT_FALSE(same_rows_shape(at::ones({5, 4}), at::ones({5, 4}, at::kDouble)));
  EXPECT_TRUE(same_rows_shape(at::ones({1, 5, 4}), at::ones({5, 1, 4})));
}

}  // namespace row_map_test_file
}  // namespace samebits::localize
