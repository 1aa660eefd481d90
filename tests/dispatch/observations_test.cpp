// From a sweep's cases to the dispatch map's observations: the reference from a case's baseline
// side, each layout from its variant side, compared with its own case's baseline (same inputs).
#include "dispatch/observations.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "dispatch/classify.h"
#include "reports/render/dispatch_text.h"

namespace samebits {
namespace {

KernelLaunch kernel(const std::string& name) {
  KernelLaunch k;
  k.name = name;
  k.block = {32, 4, 1};
  k.count = 1;
  return k;
}

// A layout case at N = n: its baseline (contiguous) and variant digests and kernels.
CaseResult layout_case(int n, const std::string& layout, const std::string& baseline_digest,
                       const std::string& variant_digest, Verdict verdict = Verdict::holds) {
  CaseResult c;
  c.id = "sweep-sum/layouts/aten/cpu/N=" + std::to_string(n) + ",layout=" + layout;
  c.kind = CheckKind::layout_invariance;
  c.params = Json{{"N", n}, {"layout", layout}, {"batch", 1}};
  c.verdict = verdict;
  OutputResult o;
  o.name = "out";
  o.baseline_sha256 = baseline_digest;
  o.variant_sha256 = variant_digest;
  c.outputs = {o};
  c.baseline_kernels = {kernel("contiguous_kernel")};
  c.variant_kernels = {kernel(layout + "_kernel")};
  c.baseline_properties = {{"N", n}, {"row_stride", n}};
  c.variant_properties = {{"N", n}, {"row_stride", n + 1}};
  return c;
}

TEST(SweepObservations, ReferenceFromTheBaselineVariantsFromTheirCases) {
  // The two layouts' cases ran on different inputs (their seeds differ): each variant is
  // compared with its own case's contiguous side, never with the other case's.
  const std::vector<CaseResult> cases = {
      layout_case(5, "strided:1", "a5", "a5"), layout_case(5, "padded:4", "b5", "x5"),
      layout_case(6, "strided:1", "a6", "y6"), layout_case(6, "padded:4", "b6", "b6"),
      layout_case(7, "strided:1", "a7", "a7", Verdict::skipped)};
  const auto observations = sweep_observations(cases, "N");
  ASSERT_EQ(observations.size(), 6u) << "two points x (reference + 2 layouts); N=7 never ran";
  EXPECT_EQ(observations[0].variant, "contiguous");
  EXPECT_EQ(observations[0].digest, "a5");
  EXPECT_EQ(observations[0].kernels[0].name, "contiguous_kernel");
  EXPECT_EQ(observations[0].properties, (PointProperties{{"N", 5}, {"row_stride", 5}}));
  EXPECT_EQ(observations[1].variant, "strided:1");
  EXPECT_EQ(observations[1].reference_digest, "a5");
  EXPECT_EQ(observations[1].properties, (PointProperties{{"N", 5}, {"row_stride", 6}}));
  EXPECT_EQ(observations[2].variant, "padded:4");
  EXPECT_EQ(observations[2].digest, "x5");
  EXPECT_EQ(observations[2].reference_digest, "b5");
  EXPECT_EQ(observations[3].point, 1);
  EXPECT_EQ(observations[3].params, (Json{{"N", 6}}));

  const DispatchMap map = classify_dispatch(observations, "sum", "aten", "N", false);
  EXPECT_EQ(map.variants, (std::vector<std::string>{"contiguous", "strided:1", "padded:4"}));
  ASSERT_EQ(map.results.size(), 2u);
  EXPECT_EQ(map.results[0].differing_points, 1) << "strided:1 differs at N = 6 only";
  EXPECT_EQ(map.results[1].differing_points, 1) << "padded:4 differs at N = 5 only";
  EXPECT_EQ(map.results[0].where_bits_differ.text, "N == 6");
  ASSERT_EQ(map.result_classes.size(), 2u);
  EXPECT_EQ(map.result_classes[0].label, "padded:4 differs");
  EXPECT_EQ(map.result_classes[1].label, "strided:1 differs");
}

TEST(SweepObservations, DeterminismCasesGiveTheReferenceOnly) {
  CaseResult c = layout_case(3, "contiguous", "d", "d");
  c.kind = CheckKind::determinism;
  c.params = Json{{"batch", 3}, {"repeat", "same_stream"}};
  const auto observations = sweep_observations({c}, "batch");
  ASSERT_EQ(observations.size(), 1u);
  EXPECT_EQ(observations[0].variant, "contiguous");
  EXPECT_EQ(observations[0].params, (Json{{"batch", 3}}));
}

TEST(SweepObservations, SeveralOutputsJoinTheirDigests) {
  CaseResult c = layout_case(3, "offset:1", "v", "w");
  OutputResult indices;
  indices.name = "indices";
  indices.baseline_sha256 = "i";
  indices.variant_sha256 = "i";
  c.outputs.push_back(indices);
  const auto observations = sweep_observations({c}, "N");
  ASSERT_EQ(observations.size(), 2u);
  EXPECT_EQ(observations[0].digest, "out:v;indices:i");
  EXPECT_EQ(observations[1].digest, "out:w;indices:i");
}

TEST(CompressValues, RunsOfIntegersBecomeRanges) {
  const std::vector<Json> values = {127, 128, 129, 131, 160, 161, "x", 3};
  EXPECT_EQ(compress_values(values), "127..129, 131, 160..161, x, 3");
  EXPECT_EQ(compress_values(values, 2), "127..129, 131, and 3 more");
  EXPECT_EQ(compress_values({}), "");
}

// A border no rule of up to two terms draws still names its points, in the finding and, when
// short enough, in the table.
TEST(SweepObservations, ABorderWithoutARuleListsItsPoints) {
  std::vector<CaseResult> cases;
  const std::set<int> odd_ones = {3, 4, 11, 12, 13, 29};
  for (int n = 0; n < 32; ++n) {
    const std::string differs = odd_ones.count(n) ? "moved" : "same";
    cases.push_back(layout_case(n, "offset:1", "same", differs));
  }
  const DispatchMap map =
      classify_dispatch(sweep_observations(cases, "N"), "sum", "aten", "N", false);
  ASSERT_EQ(map.results.size(), 1u);
  const Rule& rule = map.results[0].where_bits_differ;
  EXPECT_FALSE(rule.exact) << rule.text;
  EXPECT_EQ(rule.points, "N = 3..4, 11..13, 29");
  const auto findings = dispatch_findings(map);
  ASSERT_FALSE(findings.empty());
  EXPECT_NE(findings.back().find("at N = 3..4, 11..13, 29"), std::string::npos) << findings.back();
}

}  // namespace
}  // namespace samebits
