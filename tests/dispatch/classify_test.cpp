// Dispatch maps of synthetic sweeps of ATen's float32 sums (tests/reports/sum_sweeps.h): classes,
// their rules per variant, comparisons with the reference variant, result classes, findings.
#include "dispatch/classify.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "reports/model/dispatch_json.h"
#include "reports/render/dispatch_text.h"
#include "tests/dispatch/sum_sweeps.h"

namespace samebits {
namespace {

using namespace sum_sweeps;

// --- Expectations, written out by hand --------------------------------------------------------

struct ExpectedClass {
  std::string label;
  std::int64_t points;
  std::string rule;  // empty: the variant's only class
};
struct ExpectedVariant {
  std::string variant;
  std::vector<ExpectedClass> classes;  // in id order
};
struct ExpectedComparison {
  std::string variant;
  std::int64_t differing, kernel_differing, same_kernel;
  std::string bits_rule, kernels_rule, relation;
};
struct ExpectedResultClass {
  std::string label;
  std::int64_t points;
  std::string rule;  // empty: the only result class
};

struct Sweep {
  std::string name;
  std::string axis;
  std::function<std::vector<SweepObservation>()> observe;
  std::vector<std::string> variants;
  std::vector<std::string> class_labels;  // in id order; empty: kernels not captured
  std::vector<ExpectedVariant> dispatch;
  std::vector<ExpectedComparison> results;
  std::vector<ExpectedResultClass> result_classes;
  std::vector<std::string> findings;
};
void PrintTo(const Sweep& s, std::ostream* os) {
  *os << s.name;
}

const char* const k128x4 = "reduce_kernel<128, 4>";
const char* const k256x2 = "reduce_kernel<256, 2>";
const char* const k512x1 = "reduce_kernel<512, 1>";

const Sweep kSweeps[] = {
    {"ReferenceFinding",
     "N",
     reference_finding,
     {"contiguous", "strided:1", "padded:4"},
     {k128x4, k512x1, k256x2},
     {{"contiguous",
       {{k128x4, 6, "N % 4 == 0"}, {k512x1, 10, "N % 2 == 1"}, {k256x2, 5, "N % 4 == 2"}}},
      {"strided:1", {{k512x1, 21, ""}}},
      {"padded:4", {{k128x4, 21, ""}}}},
     {{"strided:1", 6, 11, 0, "N % 4 == 0", "N % 2 == 0", kRelationWithin},
      {"padded:4", 15, 15, 0, "N % 4 != 0", "N % 4 != 0", kRelationExactly}},
     {{"strided:1 differs", 6, "N % 4 == 0"}, {"padded:4 differs", 15, "N % 4 != 0"}},
     {"contiguous: 3 kernel classes: reduce_kernel<128, 4> where N % 4 == 0, reduce_kernel<512, 1> "
      "where N % 2 == 1, reduce_kernel<256, 2> where N % 4 == 2",
      "strided:1: reduce_kernel<512, 1> at all 21 points",
      "padded:4: reduce_kernel<128, 4> at all 21 points",
      "strided:1 vs contiguous: bits differ at 6 of 21 points, where N % 4 == 0 — only where the "
      "kernels differ (the kernels differ at 11 of 21 points, where N % 2 == 0)",
      "padded:4 vs contiguous: bits differ at 15 of 21 points, where N % 4 != 0 — exactly where "
      "the "
      "kernels differ",
      "bits: 2 result classes: strided:1 differs where N % 4 == 0; padded:4 differs where N % 4 "
      "!= 0"}},
    {"AcrossWarpSplit",
     "N",
     across_warp_split,
     {"contiguous", "strided:1"},
     {"reduce_kernel<128, 4> [16x8x1]", "reduce_kernel<512, 1> [32x16x1]",
      "reduce_kernel<256, 2> [32x8x1]", "reduce_kernel<128, 4> [32x4x1]"},
     {{"contiguous",
       {{"reduce_kernel<128, 4> [16x8x1]", 2, "N % 4 == 0 and N <= 124"},
        {"reduce_kernel<512, 1> [32x16x1]", 8, "N % 2 == 1"},
        {"reduce_kernel<256, 2> [32x8x1]", 4, "N % 4 == 2"},
        {"reduce_kernel<128, 4> [32x4x1]", 2, "N % 4 == 0 and N >= 128"}}},
      {"strided:1", {{"reduce_kernel<512, 1> [32x16x1]", 16, ""}}}},
     {{"strided:1", 2, 8, 0, "N % 4 == 0 and N >= 128", "N % 2 == 0", kRelationWithin}},
     {{"all variants agree", 14, "N % 4 != 0 or N < 128"},
      {"strided:1 differs", 2, "N % 4 == 0 and N >= 128"}},
     {"contiguous: 4 kernel classes: reduce_kernel<128, 4> [16x8x1] where N % 4 == 0 and N <= 124, "
      "reduce_kernel<512, 1> [32x16x1] where N % 2 == 1, reduce_kernel<256, 2> [32x8x1] where N % "
      "4 "
      "== 2, reduce_kernel<128, 4> [32x4x1] where N % 4 == 0 and N >= 128",
      "strided:1: reduce_kernel<512, 1> [32x16x1] at all 16 points",
      "strided:1 vs contiguous: bits differ at 2 of 16 points, where N % 4 == 0 and N >= 128 — "
      "only "
      "where the kernels differ (the kernels differ at 8 of 16 points, where N % 2 == 0)"}},
    {"RowStrideAxis",
     "row_stride",
     row_stride_axis,
     {"contiguous", "strided"},
     {k128x4, k512x1, k256x2},
     {{"contiguous", {{k128x4, 16, ""}}},
      {"strided",
       {{k128x4, 4, "row_stride % 4 == 0"},
        {k512x1, 8, "row_stride % 2 == 1"},
        {k256x2, 4, "row_stride % 4 == 2"}}}},
     {{"strided", 12, 12, 0, "row_stride % 4 != 0", "row_stride % 4 != 0", kRelationExactly}},
     {{"all variants agree", 4, "row_stride % 4 == 0"},
      {"strided differs", 12, "row_stride % 4 != 0"}},
     {"contiguous: reduce_kernel<128, 4> at all 16 points",
      "strided: 3 kernel classes: reduce_kernel<128, 4> where row_stride % 4 == 0, "
      "reduce_kernel<512, 1> where row_stride % 2 == 1, reduce_kernel<256, 2> where row_stride % 4 "
      "== 2",
      "strided vs contiguous: bits differ at 12 of 16 points, where row_stride % 4 != 0 — exactly "
      "where the kernels differ"}},
    {"RowSums",
     "D",
     row_sums,
     {"contiguous", "offset:1", "padded:4"},
     {k512x1},
     {{"contiguous", {{k512x1, 16, ""}}},
      {"offset:1", {{k512x1, 16, ""}}},
      {"padded:4", {{k512x1, 16, ""}}}},
     {{"offset:1", 7, 0, 7, "D >= 129", "no points", kRelationOutside},
      {"padded:4", 6, 0, 6, "D % 4 != 0 and D >= 128", "no points", kRelationOutside}},
     {{"all variants agree", 9, "D <= 128"},
      {"offset:1, padded:4 differ", 6, "D % 4 != 0 and D >= 128"},
      {"offset:1 differs", 1, "D == 132"}},
     {"contiguous: reduce_kernel<512, 1> at all 16 points",
      "offset:1: reduce_kernel<512, 1> at all 16 points",
      "padded:4: reduce_kernel<512, 1> at all 16 points",
      "offset:1 vs contiguous: bits differ at 7 of 16 points, where D >= 129 — all under the same "
      "kernels",
      "padded:4 vs contiguous: bits differ at 6 of 16 points, where D % 4 != 0 and D >= 128 — all "
      "under the same kernels",
      "bits: 3 result classes: all variants agree where D <= 128; offset:1, padded:4 differ where "
      "D % 4 != 0 and D >= 128; offset:1 differs where D == 132"}},
    {"RowSumsWithoutCapture",
     "D",
     [] { return without_kernels(row_sums()); },
     {"contiguous", "offset:1", "padded:4"},
     {},
     {},
     {{"offset:1", 7, 0, 0, "D >= 129", "", kRelationNotCaptured},
      {"padded:4", 6, 0, 0, "D % 4 != 0 and D >= 128", "", kRelationNotCaptured}},
     {{"all variants agree", 9, "D <= 128"},
      {"offset:1, padded:4 differ", 6, "D % 4 != 0 and D >= 128"},
      {"offset:1 differs", 1, "D == 132"}},
     {"offset:1 vs contiguous: bits differ at 7 of 16 points, where D >= 129",
      "padded:4 vs contiguous: bits differ at 6 of 16 points, where D % 4 != 0 and D >= 128",
      "bits: 3 result classes: all variants agree where D <= 128; offset:1, padded:4 differ where "
      "D % 4 != 0 and D >= 128; offset:1 differs where D == 132"}},
};

class SweepMapTest : public ::testing::TestWithParam<Sweep> {
 protected:
  DispatchMap map_ = classify_dispatch(GetParam().observe(), "sum", "aten", GetParam().axis, false);
};

TEST_P(SweepMapTest, DispatchClasses) {
  const Sweep& s = GetParam();
  EXPECT_EQ(map_.variants, s.variants);
  EXPECT_EQ(map_.kernels_captured, !s.class_labels.empty());
  std::vector<std::string> labels;
  for (const auto& c : map_.classes) labels.push_back(c.label);
  EXPECT_EQ(labels, s.class_labels);
  for (std::size_t id = 0; id < map_.classes.size(); ++id) {
    EXPECT_EQ(map_.classes[id].id, static_cast<int>(id));
  }
}

TEST_P(SweepMapTest, ClassRulesPerVariant) {
  const Sweep& s = GetParam();
  ASSERT_EQ(map_.dispatch.size(), s.dispatch.size());
  for (std::size_t v = 0; v < s.dispatch.size(); ++v) {
    const VariantDispatch& d = map_.dispatch[v];
    const ExpectedVariant& e = s.dispatch[v];
    SCOPED_TRACE(e.variant);
    EXPECT_EQ(d.variant, e.variant);
    std::vector<std::string> got, want;
    for (const auto& c : e.classes) {
      want.push_back(c.label + " @" + std::to_string(c.points) + " " + c.rule);
    }
    std::vector<int> ids;
    for (int c : d.class_of_point) {
      if (std::find(ids.begin(), ids.end(), c) == ids.end()) ids.push_back(c);
    }
    std::sort(ids.begin(), ids.end());
    for (int id : ids) {
      std::string rule;
      for (const auto& [c, r] : d.class_rules) {
        if (c == id) rule = r.text + (r.exact ? "" : " (inexact)");
      }
      got.push_back(
          map_.classes.at(id).label + " @" +
          std::to_string(std::count(d.class_of_point.begin(), d.class_of_point.end(), id)) + " " +
          rule);
    }
    EXPECT_EQ(got, want);
  }
}

TEST_P(SweepMapTest, ResultComparisons) {
  const Sweep& s = GetParam();
  ASSERT_EQ(map_.results.size(), s.results.size());
  for (std::size_t i = 0; i < s.results.size(); ++i) {
    const ResultComparison& r = map_.results[i];
    const ExpectedComparison& e = s.results[i];
    SCOPED_TRACE(e.variant);
    EXPECT_EQ(r.variant, e.variant);
    EXPECT_EQ(r.reference, s.variants[0]);
    EXPECT_EQ(r.points, static_cast<std::int64_t>(map_.points.size()));
    EXPECT_EQ(r.differing_points, e.differing);
    EXPECT_EQ(r.kernel_differing_points, e.kernel_differing);
    EXPECT_EQ(r.same_kernel_differences, e.same_kernel);
    EXPECT_EQ(r.where_bits_differ.text, e.bits_rule);
    EXPECT_TRUE(r.where_bits_differ.exact);
    EXPECT_EQ(r.where_kernels_differ.text, e.kernels_rule);
    EXPECT_EQ(r.relation, e.relation);
  }
}

TEST_P(SweepMapTest, ResultClasses) {
  const Sweep& s = GetParam();
  ASSERT_EQ(map_.result_classes.size(), s.result_classes.size());
  ASSERT_EQ(map_.result_class_of_point.size(), map_.points.size());
  for (std::size_t i = 0; i < s.result_classes.size(); ++i) {
    const ResultClass& rc = map_.result_classes[i];
    SCOPED_TRACE(rc.label);
    EXPECT_EQ(rc.id, static_cast<int>(i));
    EXPECT_EQ(rc.label, s.result_classes[i].label);
    EXPECT_EQ(rc.points, s.result_classes[i].points);
    EXPECT_EQ(rc.points, std::count(map_.result_class_of_point.begin(),
                                    map_.result_class_of_point.end(), rc.id));
    EXPECT_EQ(rc.rule.text, s.result_classes[i].rule);
  }
}

TEST_P(SweepMapTest, Findings) {
  EXPECT_EQ(dispatch_findings(map_), GetParam().findings);
}

TEST_P(SweepMapTest, PointOrderNotListOrderNumbersClasses) {
  // The same observations with the points listed backwards (variants still in order per point).
  std::vector<SweepObservation> observations = GetParam().observe();
  const std::size_t per_point = GetParam().variants.size();
  std::vector<SweepObservation> backwards;
  for (std::size_t p = observations.size() / per_point; p-- > 0;) {
    for (std::size_t v = 0; v < per_point; ++v)
      backwards.push_back(observations[p * per_point + v]);
  }
  const DispatchMap again = classify_dispatch(backwards, "sum", "aten", GetParam().axis, false);
  EXPECT_EQ(Json(again).dump(), Json(map_).dump());
}

INSTANTIATE_TEST_SUITE_P(Sums, SweepMapTest, ::testing::ValuesIn(kSweeps),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace samebits
