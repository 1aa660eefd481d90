// The op alignment: identical sequences pair one to one; an extra op on either side is left
// unmatched and the ops around it still pair.
#include "harness/localize/alignment.h"

#include <gtest/gtest.h>

namespace samebits::localize {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace alignment_test_file {}
using namespace alignment_test_file;
namespace alignment_test_file {

std::string show(const std::vector<AlignedPair>& pairs) {
  std::string s;
  for (const auto& p : pairs)
    s += (p.a ? std::to_string(*p.a) : "-") + ":" + (p.b ? std::to_string(*p.b) : "-") + " ";
  return s;
}

TEST(Alignment, IdenticalSequencesPairOneToOne) {
  EXPECT_EQ(show(align({"mm", "add", "mm"}, {"mm", "add", "mm"})), "0:0 1:1 2:2 ");
}

TEST(Alignment, AnExtraOpInTheBatchIsUnmatched) {
  EXPECT_EQ(show(align({"embed", "norm", "mm", "add"}, {"embed", "norm", "pad", "mm", "add"})),
            "0:0 1:1 -:2 2:3 3:4 ");
}

TEST(Alignment, ExtraOpsOnBothSidesAndAtTheEnds) {
  EXPECT_EQ(show(align({"x", "a", "b", "c"}, {"a", "y", "b", "c", "z"})),
            "0:- 1:0 -:1 2:2 3:3 -:4 ");
  EXPECT_EQ(show(align({}, {"a"})), "-:0 ");
  EXPECT_EQ(show(align({"a"}, {})), "0:- ");
}

}  // namespace alignment_test_file
}  // namespace samebits::localize
