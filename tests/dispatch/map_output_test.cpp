// What a dispatch map tells people and files (relations of bits to kernels, JSON, the table), and
// maps with gaps, repeats, points without kernels, many classes, grids, 6000 points.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "dispatch/classify.h"
#include "reports/model/dispatch_json.h"
#include "reports/render/dispatch_text.h"
#include "tests/dispatch/sum_sweeps.h"

namespace samebits {
namespace {

using namespace sum_sweeps;

KernelLaunch kernel(const std::string& name) {
  KernelLaunch k;
  k.name = name;
  k.block = {128, 1, 1};
  k.count = 1;
  return k;
}

// Points N = 0..n-1 under "ref" and "x"; x launches another kernel where `kernels_differ` (no
// kernels at all when it is empty) and has other bits where `bits_differ`.
std::vector<SweepObservation> pair_sweep(int n, const std::function<bool(int)>& kernels_differ,
                                         const std::function<bool(int)>& bits_differ) {
  std::vector<SweepObservation> out;
  for (int i = 0; i < n; ++i) {
    for (const std::string variant : {"ref", "x"}) {
      SweepObservation o;
      o.point = i;
      o.params = Json{{"N", i}};
      o.variant = variant;
      o.properties = {{"N", i}};
      const bool x = variant == "x";
      if (kernels_differ) o.kernels = {kernel(x && kernels_differ(i) ? "other_kernel" : "kernel")};
      o.digest = "bits " + std::to_string(i) + (x && bits_differ(i) ? " moved" : "");
      out.push_back(std::move(o));
    }
  }
  return out;
}

struct ComparisonCase {
  std::string name;
  std::function<bool(int)> kernels_differ;  // empty: kernels not captured
  std::function<bool(int)> bits_differ;
  std::string relation;
  std::int64_t differing, kernel_differing, same_kernel;
  std::string finding;
};
void PrintTo(const ComparisonCase& c, std::ostream* os) {
  *os << c.name;
}

class ComparisonTest : public ::testing::TestWithParam<ComparisonCase> {};

TEST_P(ComparisonTest, RelationCountsAndFinding) {
  const ComparisonCase& c = GetParam();
  const DispatchMap map =
      classify_dispatch(pair_sweep(8, c.kernels_differ, c.bits_differ), "op", "impl", "N", false);
  ASSERT_EQ(map.results.size(), 1u);
  const ResultComparison& r = map.results[0];
  EXPECT_EQ(r.relation, c.relation);
  EXPECT_EQ(r.points, 8);
  EXPECT_EQ(r.differing_points, c.differing);
  EXPECT_EQ(r.kernel_differing_points, c.kernel_differing);
  EXPECT_EQ(r.same_kernel_differences, c.same_kernel);
  ASSERT_FALSE(dispatch_findings(map).empty());
  EXPECT_EQ(dispatch_findings(map).back(), c.finding);
}

auto never = [](int) { return false; };
auto always = [](int) { return true; };
auto odd = [](int n) { return n % 2 == 1; };
auto from = [](int first) { return [first](int n) { return n >= first; }; };

const ComparisonCase kComparisons[] = {
    {"SameBitsSameKernels", never, never, kRelationNoDifferences, 0, 0, 0,
     "x vs ref: same bits at all 8 points, with the same kernels"},
    {"SameBitsDespiteKernels", odd, never, kRelationNoDifferences, 0, 4, 0,
     "x vs ref: same bits at all 8 points, although the kernels differ at 4 of 8 points, where N "
     "% 2 == 1"},
    {"ExactlyWhereKernelsDiffer", from(4), from(4), kRelationExactly, 4, 4, 0,
     "x vs ref: bits differ at 4 of 8 points, where N >= 4 — exactly where the kernels differ"},
    {"OnlyWhereKernelsDiffer", from(4), from(6), kRelationWithin, 2, 4, 0,
     "x vs ref: bits differ at 2 of 8 points, where N >= 6 — only where the kernels differ (the "
     "kernels differ at 4 of 8 points, where N >= 4)"},
    {"AlsoUnderSameKernels", odd, from(4), kRelationBeyond, 4, 4, 2,
     "x vs ref: bits differ at 4 of 8 points, where N >= 4 — 2 of them under the same kernels (the "
     "kernels differ at 4 of 8 points, where N % 2 == 1)"},
    {"OnlyUnderSameKernels", odd, [](int n) { return n == 0 || n == 2; }, kRelationOutside, 2, 4, 2,
     "x vs ref: bits differ at 2 of 8 points, where N % 2 == 0 and N <= 2 — all under the same "
     "kernels (the kernels differ at 4 of 8 points, where N % 2 == 1, with the same bits)"},
    {"OnlyUnderKernelsThatNeverDiffer", never, odd, kRelationOutside, 4, 0, 4,
     "x vs ref: bits differ at 4 of 8 points, where N % 2 == 1 — all under the same kernels"},
    {"EverywhereOnBothCounts", always, always, kRelationExactly, 8, 8, 0,
     "x vs ref: bits differ at all 8 points — exactly where the kernels differ"},
    {"WithoutCapture", nullptr, odd, kRelationNotCaptured, 4, 0, 0,
     "x vs ref: bits differ at 4 of 8 points, where N % 2 == 1"},
};
INSTANTIATE_TEST_SUITE_P(Relations, ComparisonTest, ::testing::ValuesIn(kComparisons),
                         [](const auto& info) { return info.param.name; });

TEST(DispatchFindings, InexactRuleReadsMostly) {
  const auto bits = [](int n) { return n % 4 == 0 || n == 5 || n == 10; };
  const DispatchMap map =
      classify_dispatch(pair_sweep(16, nullptr, bits), "op", "impl", "N", false);
  EXPECT_EQ(dispatch_findings(map),
            std::vector<std::string>{"x vs ref: bits differ at 6 of 16 points, mostly "
                                     "where N % 4 == 0 (14 of 16 points fit): at N = 0, 4..5, "
                                     "8, 10, 12"});
}

TEST(DispatchJson, ReferenceFinding) {
  const Json j = classify_dispatch(reference_finding(), "sum", "aten", "N", false);
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"op", "impl", "axis", "variants", "kernels_captured",
                                            "signature_with_grid", "points", "classes", "dispatch",
                                            "results", "result_classes", "result_class_of_point",
                                            "findings"}));
  EXPECT_EQ(j["kernels_captured"], true);
  ASSERT_EQ(j["points"].size(), 21u);
  EXPECT_EQ(j["points"][0], (Json{{"N", 128}}));
  EXPECT_EQ(j["points"][20], (Json{{"N", 148}}));

  const Json& first = j["classes"][0];
  EXPECT_EQ(first["label"], "reduce_kernel<128, 4>");
  EXPECT_EQ(first["signature"], reduce_kernel_name(4) + " [32x4x1]");
  EXPECT_EQ(first["observations"], 27);  // contiguous at N % 4 == 0, padded:4 everywhere
  EXPECT_EQ(first["kernels"][0]["name"], reduce_kernel_name(4));
  EXPECT_EQ(first["kernels"][0]["block"], (Json{32, 4, 1}));
  EXPECT_EQ(first["kernels"][0]["grid"], (Json{1, 1, 1}));
  EXPECT_EQ(first["kernels"][0]["registers"], 32);

  const Json& contiguous = j["dispatch"][0];
  EXPECT_EQ(contiguous["variant"], "contiguous");
  EXPECT_EQ(contiguous["class_of_point"].size(), 21u);
  EXPECT_EQ(Json(contiguous["class_of_point"].begin(), contiguous["class_of_point"].begin() + 5),
            (Json{0, 1, 2, 1, 0}));
  EXPECT_EQ(
      contiguous["rules"][0],
      (Json{{"class", 0},
            {"rule",
             {{"text", "N % 4 == 0"}, {"exact", true}, {"matched", 21}, {"considered", 21}}}}));
  EXPECT_EQ(j["dispatch"][1]["rules"], Json::array());

  const Json& padded = j["results"][1];
  EXPECT_EQ(padded["variant"], "padded:4");
  EXPECT_EQ(padded["reference"], "contiguous");
  EXPECT_EQ(padded["differing_points"], 15);
  EXPECT_EQ(padded["kernel_differing_points"], 15);
  EXPECT_EQ(padded["where_bits_differ"]["text"], "N % 4 != 0");
  EXPECT_EQ(padded["relation"], kRelationExactly);

  EXPECT_EQ(j["result_classes"][0]["groups"], (Json{0, 1, 0}));
  EXPECT_EQ(j["result_classes"][0]["rule"]["text"], "N % 4 == 0");
  EXPECT_EQ(Json(j["result_class_of_point"].begin(), j["result_class_of_point"].begin() + 5),
            (Json{0, 1, 1, 1, 0}));
  EXPECT_EQ(j["findings"].size(), 6u);
  EXPECT_EQ(Json::parse(j.dump()), j);
}

TEST(DispatchJson, WithoutCaptureHasResultsOnly) {
  const Json j = classify_dispatch(without_kernels(row_sums()), "sum", "aten", "D", false);
  EXPECT_EQ(j["kernels_captured"], false);
  EXPECT_EQ(j["classes"], Json::array());
  EXPECT_EQ(j["dispatch"], Json::array());
  EXPECT_FALSE(j["results"][0].contains("where_kernels_differ"));
  EXPECT_FALSE(j["results"][0].contains("kernel_differing_points"));
  EXPECT_EQ(j["results"][0]["relation"], kRelationNotCaptured);
  EXPECT_EQ(j["result_classes"].size(), 3u);
}

std::string table_of(const DispatchMap& map) {
  std::FILE* file = std::tmpfile();
  print_dispatch_table(file, map);
  std::rewind(file);
  std::string text;
  for (int c; (c = std::fgetc(file)) != EOF;) text += static_cast<char>(c);
  std::fclose(file);
  return text;
}

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(DispatchTable, ReferenceFinding) {
  const DispatchMap map = classify_dispatch(reference_finding(), "sum", "aten", "N", false);
  std::string expected =
      "\ndispatch: sum (aten) over N, 21 points, variants contiguous, strided:1, padded:4; kernels "
      "by name and block\n"
      "  variant        class  points  rule        blocks   kernels\n"
      "  contiguous     0           6  N % 4 == 0  32x4x1   reduce_kernel<128, 4>\n"
      "                 1          10  N % 2 == 1  32x16x1  reduce_kernel<512, 1>\n"
      "                 2           5  N % 4 == 2  32x8x1   reduce_kernel<256, 2>\n"
      "  strided:1      1          21  all points  32x16x1  reduce_kernel<512, 1>\n"
      "  padded:4       0          21  all points  32x4x1   reduce_kernel<128, 4>\n"
      "  vs contiguous   bits  where       kernels  where       relation\n"
      "  strided:1       6/21  N % 4 == 0    11/21  N % 2 == 0  bits differ only where kernels "
      "differ\n"
      "  padded:4       15/21  N % 4 != 0    15/21  N % 4 != 0  bits differ exactly where kernels "
      "differ\n"
      "  bits           points  rule        variants\n"
      "  class 0             6  N % 4 == 0  strided:1 differs\n"
      "  class 1            15  N % 4 != 0  padded:4 differs\n";
  for (const auto& finding : dispatch_findings(map)) expected += "  - " + finding + "\n";
  EXPECT_EQ(table_of(map), expected);
}

TEST(DispatchMap, FullSweepOfSixThousandPoints) {
  const auto observations = column_sums(127, 6126, {"contiguous", "strided:1", "padded:4"});
  const DispatchMap map = classify_dispatch(observations, "sum", "aten", "N", false);
  ASSERT_EQ(map.points.size(), 6000u);
  std::vector<std::string> rules;
  for (const auto& [id, rule] : map.dispatch[0].class_rules) {
    rules.push_back(map.classes[id].label + " where " + rule.text);
  }
  EXPECT_EQ(rules, (std::vector<std::string>{"reduce_kernel<512, 1> where N % 2 == 1",
                                             "reduce_kernel<128, 4> where N % 4 == 0",
                                             "reduce_kernel<256, 2> where N % 4 == 2"}));
  EXPECT_EQ(map.results[0].where_bits_differ.text, "N % 4 == 0");
  EXPECT_EQ(map.results[0].differing_points, 1500);
  EXPECT_EQ(map.results[1].where_bits_differ.text, "N % 4 != 0");
  EXPECT_EQ(map.results[1].relation, kRelationExactly);
  EXPECT_LT(Json(map).dump().size(), 200'000u);  // compact per-point arrays
  EXPECT_LE(lines(table_of(map)), 40u);

  // With grids, the kernel classes follow N / 32 (331 of them), and the table stays short.
  const DispatchMap by_grid = classify_dispatch(observations, "sum", "aten", "N", true);
  EXPECT_LE(lines(table_of(by_grid)), 40u);
  std::string grid_5;
  for (const auto& [id, rule] : by_grid.dispatch[1].class_rules) {
    if (by_grid.classes[id].label == "reduce_kernel<512, 1> [32x16x1] grid [5x1x1]")
      grid_5 = rule.text;
  }
  EXPECT_EQ(grid_5, "N >= 129 and N <= 160");  // strided:1 launches ceil(N / 32) blocks
}

TEST(DispatchMap, GridSplitsClassesWhenAsked) {
  const DispatchMap map = classify_dispatch(reference_finding(), "sum", "aten", "N", true);
  std::vector<std::string> labels;
  for (const auto& c : map.classes) labels.push_back(c.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"reduce_kernel<128, 4> [32x4x1] grid [1x1x1]",
                                              "reduce_kernel<512, 1> [32x16x1] grid [4x1x1]",
                                              "reduce_kernel<512, 1> [32x16x1] grid [5x1x1]",
                                              "reduce_kernel<128, 4> [32x4x1] grid [2x1x1]",
                                              "reduce_kernel<256, 2> [32x8x1] grid [3x1x1]"}));
  std::vector<std::string> rules;
  for (const auto& [id, rule] : map.dispatch[0].class_rules) rules.push_back(rule.text);
  EXPECT_EQ(rules, (std::vector<std::string>{"N == 128", "N % 2 == 1", "N % 4 == 0 and N >= 132",
                                             "N % 4 == 2"}));
  EXPECT_EQ(Json(map)["signature_with_grid"], true);
}

TEST(DispatchMap, VariantMissingAtAPoint) {
  auto observations = reference_finding();
  observations.erase(std::remove_if(observations.begin(), observations.end(),
                                    [](const SweepObservation& o) {
                                      return o.variant == "padded:4" && o.point == 2;  // N = 130
                                    }),
                     observations.end());
  const DispatchMap map = classify_dispatch(observations, "sum", "aten", "N", false);
  EXPECT_EQ(map.dispatch[2].class_of_point[2], -1);
  EXPECT_EQ(map.results[1].points, 20);
  EXPECT_EQ(map.results[1].differing_points, 14);
  EXPECT_EQ(map.results[1].relation, kRelationExactly);
  ASSERT_EQ(map.result_classes.size(), 3u);
  EXPECT_EQ(map.result_classes[2].label, "none differs (padded:4 not run)");
  EXPECT_EQ(map.result_classes[2].rule.text, "N == 130");
  EXPECT_EQ(dispatch_findings(map)[2], "padded:4: reduce_kernel<128, 4> at all 20 points");
}

TEST(DispatchMap, RepeatedObservationIsRefused) {
  auto observations = reference_finding();
  observations.push_back(observations[4]);
  EXPECT_THROW(classify_dispatch(observations, "sum", "aten", "N", false), std::invalid_argument);
}

TEST(DispatchMap, PointWithoutKernelsFormsItsOwnClass) {
  auto observations = reference_finding();
  for (auto& o : observations) {
    if (o.variant == "contiguous" && o.point == 3) o.kernels.clear();  // N = 131
  }
  const DispatchMap map = classify_dispatch(observations, "sum", "aten", "N", false);
  ASSERT_EQ(map.classes.size(), 4u);
  EXPECT_EQ(map.classes[3].label, "(no kernels)");
  EXPECT_EQ(
      dispatch_findings(map)[0],
      "contiguous: 4 kernel classes: reduce_kernel<128, 4> where N % 4 == 0, "
      "reduce_kernel<512, 1> where N % 2 == 1 and N != 131, reduce_kernel<256, 2> where N % 4 "
      "== 2, (no kernels) where N == 131");
  EXPECT_EQ(map.results[0].where_kernels_differ.text, "N % 2 == 0 or N == 131");
}

TEST(DispatchMap, ManyClassesAreListedInPart) {
  std::vector<SweepObservation> observations;
  for (int n = 0; n < 10; ++n) {
    SweepObservation o;
    o.point = n;
    o.params = Json{{"N", n}};
    o.variant = "x";
    o.properties = {{"N", n}};
    o.kernels = {kernel("k" + std::to_string(n))};
    o.digest = "bits";
    observations.push_back(o);
  }
  const DispatchMap map = classify_dispatch(observations, "op", "impl", "N", false);
  EXPECT_EQ(dispatch_findings(map),
            std::vector<std::string>{"x: 10 kernel classes: k0 where N == 0, k1 where "
                                     "N == 1, k2 where N == 2, k3 where N == 3, and "
                                     "6 more"});
  const std::string table = table_of(map);
  EXPECT_NE(table.find("k5\n"), std::string::npos);
  EXPECT_EQ(table.find("k6\n"), std::string::npos);
  EXPECT_NE(table.find("… 4 more classes"), std::string::npos) << table;
}

}  // namespace
}  // namespace samebits
