// Shares of a run: every case in exactly one share, the same share on every machine (FNV-1a of the
// id), and a share index outside its count refused.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "common/errors.h"
#include "harness/op_registry.h"
#include "harness/plan.h"
#include "harness/selection.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace shard_selection_test_file {}
using namespace shard_selection_test_file;
namespace shard_selection_test_file {

std::vector<std::unique_ptr<Contract>> contracts() {
  std::vector<std::unique_ptr<Contract>> out;
  out.push_back(std::make_unique<Contract>(parse_contract(R"({"name": "s", "op": "sum",
    "implementations": ["aten"], "sweep": {"rows": [1, 2, 3], "N": [1, 2, 3, 4, 5]},
    "checks": [{"kind": "determinism", "expect": {"aten": "holds"}}]})",
                                                          "t/s.json")));
  return out;
}

// FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c (the published test vector), which is 5 modulo 7.
TEST(Shards, TheHashIsFnv1a) {
  EXPECT_EQ(shard_of("a", 7), 5u);
  EXPECT_EQ(shard_of("a", 1), 0u);
}

TEST(Shards, EveryCaseInExactlyOneShareInPlanOrder) {
  const auto cs = contracts();
  const OpRegistry registry = OpRegistry::builtin();
  const auto all = plan_cases(cs, registry, "cpu", 0);
  std::map<std::string, int> count;
  for (std::uint32_t i = 0; i < 4; ++i) {
    CaseSelection s;
    s.shard_index = i;
    s.shard_count = 4;
    const SelectedCases share = select_cases(all, s);
    EXPECT_EQ(share.run_cases, static_cast<std::int64_t>(all.size()));
    std::size_t last = 0;
    for (const auto& c : share.cases) {
      ++count[c.id];
      std::size_t at = 0;
      while (all[at].id != c.id) ++at;
      EXPECT_GE(at, last) << "share " << i << " is out of plan order";
      EXPECT_EQ(c.index, static_cast<std::int64_t>(at)) << "its position in the whole run";
      last = at;
    }
  }
  ASSERT_EQ(count.size(), all.size());
  for (const auto& [id, n] : count) EXPECT_EQ(n, 1) << id;
}

TEST(Shards, AShareOfAFilterSplitsTheFilteredCases) {
  const auto cs = contracts();
  const OpRegistry registry = OpRegistry::builtin();
  const auto all = plan_cases(cs, registry, "cpu", 0);
  std::size_t total = 0;
  std::set<std::int64_t> positions;
  std::set<std::string> digests;
  for (std::uint32_t i = 0; i < 2; ++i) {
    CaseSelection s{"rows=2", "", i, 2};
    const SelectedCases share = select_cases(all, s);
    EXPECT_EQ(share.run_cases, 5);  // the filtered run's, not the share's nor the plan's
    digests.insert(share.run_ids_sha256);
    for (const auto& c : share.cases) {
      EXPECT_NE(c.id.find("rows=2"), std::string::npos);
      positions.insert(c.index);
      ++total;
    }
  }
  EXPECT_EQ(total, 5u);
  EXPECT_EQ(positions, (std::set<std::int64_t>{0, 1, 2, 3, 4}));  // numbered within the filter
  EXPECT_EQ(digests.size(), 1u);                                  // every share names the same run
  // Negative control: another filter is another run.
  CaseSelection other{"rows=1", "", 0, 1};
  EXPECT_NE(select_cases(all, other).run_ids_sha256, *digests.begin());
}

TEST(Shards, AnIndexOutsideTheCountIsRefused) {
  const auto cs = contracts();
  const OpRegistry registry = OpRegistry::builtin();
  CaseSelection s;
  s.shard_index = 2;
  s.shard_count = 2;
  EXPECT_THROW(select_cases(plan_cases(cs, registry, "cpu", 0), s), ContractError);
}

}  // namespace shard_selection_test_file
}  // namespace samebits
