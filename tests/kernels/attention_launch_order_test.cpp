// The tensor-core attention's launch order (launch_order.h): every block number holds one
// (sequence, head block, tile) and each is held once; the plain order as the kernels had it; and
// a sectioned causal launch that ends on its shortest blocks; a persistent launch's turns take
// every block once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <tuple>

#include "kernels/attention/launch_order.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace attention_launch_order_test_file {}
using namespace attention_launch_order_test_file;
namespace attention_launch_order_test_file {

using kernels::attention_launch::block_place;
using kernels::attention_launch::BlockPlace;
using kernels::attention_launch::persistent_turn;

struct Launch {
  std::int64_t q_tiles, head_blocks, sequences, section;
};

std::string name_of(const testing::TestParamInfo<Launch>& info) {
  const Launch& l = info.param;
  return "T" + std::to_string(l.q_tiles) + "_H" + std::to_string(l.head_blocks) + "_B" +
         std::to_string(l.sequences) + "_S" + std::to_string(l.section);
}

class LaunchOrder : public testing::TestWithParam<Launch> {};

TEST_P(LaunchOrder, EveryBlockOnceAndInRange) {
  const Launch l = GetParam();
  const std::int64_t blocks = l.q_tiles * l.head_blocks * l.sequences;
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> seen;
  for (std::int64_t i = 0; i < blocks; ++i) {
    const BlockPlace p = block_place(i, l.q_tiles, l.head_blocks, l.sequences, l.section);
    ASSERT_TRUE(p.b >= 0 && p.b < l.sequences && p.head_block >= 0 &&
                p.head_block < l.head_blocks && p.tile >= 0 && p.tile < l.q_tiles)
        << "block " << i << " -> (" << p.b << ", " << p.head_block << ", " << p.tile << ")";
    ASSERT_TRUE(seen.insert({p.b, p.head_block, p.tile}).second)
        << "block " << i << " repeats (" << p.b << ", " << p.head_block << ", " << p.tile << ")";
  }
  EXPECT_EQ(static_cast<std::int64_t>(seen.size()), blocks);
}

// Inside a section the tiles go from the last to the first, and a section's blocks are
// consecutive: so the last blocks launched are tile 0 of the last section's pairs.
TEST_P(LaunchOrder, SectionsRunLongestTilesFirst) {
  const Launch l = GetParam();
  if (l.section <= 0) GTEST_SKIP() << "the plain order";
  const std::int64_t blocks = l.q_tiles * l.head_blocks * l.sequences;
  std::int64_t previous_tile = l.q_tiles, previous_pair = -1;
  for (std::int64_t i = 0; i < blocks; ++i) {
    const BlockPlace p = block_place(i, l.q_tiles, l.head_blocks, l.sequences, l.section);
    const std::int64_t pair = p.b * l.head_blocks + p.head_block;
    const bool same_section = previous_pair >= 0 && pair / l.section == previous_pair / l.section;
    // The first section may be short (the remainder) but holds pairs of one section number
    // counted from the end; tiles never rise inside a section.
    if (same_section) {
      EXPECT_LE(p.tile, previous_tile) << "block " << i;
    }
    previous_tile = p.tile;
    previous_pair = pair;
  }
  const std::int64_t last_section = std::min(l.section, l.head_blocks * l.sequences);
  for (std::int64_t i = blocks - last_section; i < blocks; ++i)
    EXPECT_EQ(block_place(i, l.q_tiles, l.head_blocks, l.sequences, l.section).tile, 0)
        << "block " << i;
}

INSTANTIATE_TEST_SUITE_P(Launches, LaunchOrder,
                         testing::Values(Launch{32, 32, 4, 0}, Launch{32, 32, 4, 12},
                                         Launch{32, 32, 8, 12}, Launch{5, 7, 3, 2},
                                         Launch{1, 1, 1, 1}, Launch{7, 3, 1, 100},
                                         Launch{3, 4, 5, 1}),
                         name_of);

// The plain order is the one the kernels had: x the tile from the last, y the head block, z the
// sequence.
TEST(LaunchOrderPlain, MatchesTheGridOrder) {
  const std::int64_t tiles = 6, heads = 5, sequences = 3;
  for (std::int64_t z = 0; z < sequences; ++z)
    for (std::int64_t y = 0; y < heads; ++y)
      for (std::int64_t x = 0; x < tiles; ++x) {
        const BlockPlace p = block_place((z * heads + y) * tiles + x, tiles, heads, sequences, 0);
        EXPECT_EQ(p.b, z);
        EXPECT_EQ(p.head_block, y);
        EXPECT_EQ(p.tile, tiles - 1 - x);
      }
}

// Control: the sectioned order is not the plain one (else the test above proves nothing new).
TEST(LaunchOrderPlain, SectionsDiffer) {
  int differ = 0;
  for (std::int64_t i = 0; i < 4 * 3 * 2; ++i) {
    const BlockPlace a = block_place(i, 4, 3, 2, 0), b = block_place(i, 4, 3, 2, 2);
    differ += a.b != b.b || a.head_block != b.head_block || a.tile != b.tile;
  }
  EXPECT_GT(differ, 0);
}

// Persistent blocks take every block number of a plain launch once, whatever the two counts
// (fewer blocks than numbers, more, one); a round's numbers are its blocks' and in odd rounds
// the first of them goes to the last block.
TEST(PersistentTurns, EveryBlockNumberOnceWhateverTheCounts) {
  for (const std::int64_t blocks : {1, 3, 132}) {
    for (const std::int64_t total : {1, 2, 131, 132, 133, 4096, 4097}) {
      std::set<std::int64_t> seen;
      for (std::int64_t block = 0; block < blocks; ++block) {
        for (std::int64_t round = 0; round * blocks < total; ++round) {
          const std::int64_t n = persistent_turn(block, blocks, round, total);
          if (n < 0) continue;
          ASSERT_TRUE(n >= round * blocks && n < (round + 1) * blocks && n < total)
              << blocks << " blocks, " << total << " in all: block " << block << " round " << round
              << " took " << n;
          ASSERT_TRUE(seen.insert(n).second) << "number " << n << " taken twice";
        }
      }
      EXPECT_EQ(static_cast<std::int64_t>(seen.size()), total) << blocks << " blocks";
    }
  }
  EXPECT_EQ(persistent_turn(0, 132, 0, 4096), 0);
  EXPECT_EQ(persistent_turn(131, 132, 1, 4096), 132);
  EXPECT_EQ(persistent_turn(0, 132, 1, 4096), 263);
  EXPECT_EQ(persistent_turn(0, 132, 31, 4096), -1);  // round 31 holds 4092..4095: blocks 128..131
  EXPECT_EQ(persistent_turn(131, 132, 31, 4096), 4092);
}

}  // namespace attention_launch_order_test_file
}  // namespace samebits
