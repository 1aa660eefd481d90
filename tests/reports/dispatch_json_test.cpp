// A sweep's dispatch map both ways: every part read back as written, the fields a map leaves out
// (kernel comparisons without capture, a lone result class's rule, a rule's empty points) absent
// and restored as defaults, and errors naming the JSON path in the section.
#include "reports/model/dispatch_json.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/json_fields.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace dispatch_json_test_file {}
using namespace dispatch_json_test_file;
namespace dispatch_json_test_file {

// Two points, N = 127 and 128: contiguous switches kernels at 128, padded:4 runs one kernel and
// differs at 127. Kernels captured, two result classes.
DispatchMap captured_map() {
  DispatchMap m;
  m.op = "sum";
  m.impl = "aten";
  m.axis = "N";
  m.variants = {"contiguous", "padded:4"};
  m.kernels_captured = true;
  m.signature_with_grid = true;
  m.points = {Json{{"N", 127}}, Json{{"N", 128}}};
  m.classes = {{0,
                "sig0",
                "reduce_kernel<512, 1>",
                {{"reduce_kernel<512, 1>", {1, 2, 1}, {32, 16, 1}, 40, 0, 16, 1, 99}},
                1},
               {1,
                "sig1",
                "reduce_kernel<128, 4>",
                {{"reduce_kernel<128, 4>", {3, 1, 1}, {32, 4, 1}, 32, 8, 0, 2, 7}},
                3}};
  m.dispatch = {
      {"contiguous", {0, 1}, {{0, {"N % 4 != 0", true, 2, 2}}, {1, {"N % 4 == 0", true, 2, 2}}}},
      {"padded:4", {1, 1}, {}}};
  ResultComparison r;
  r.variant = "padded:4";
  r.reference = "contiguous";
  r.points = 2;
  r.differing_points = 1;
  r.kernel_differing_points = 1;
  r.same_kernel_differences = 0;
  r.where_bits_differ = {"N % 4 != 0", true, 2, 2};
  r.where_kernels_differ = {"no simple rule", false, 0, 2, "N = 127"};
  r.relation = kRelationExactly;
  m.results = {r};
  m.result_classes = {{1, {0, 1}, "padded:4 differs", 1, {"N % 4 != 0", true, 2, 2}},
                      {0, {0, 0}, "all variants agree", 1, {"N % 4 == 0", true, 2, 2}}};
  m.result_class_of_point = {1, 0};
  return m;
}

// The same sweep on the CPU: no kernels, one result class.
DispatchMap uncaptured_map() {
  DispatchMap m = captured_map();
  m.kernels_captured = false;
  m.classes.clear();
  m.dispatch.clear();
  m.results[0].kernel_differing_points = 0;
  m.results[0].where_kernels_differ = {};
  m.results[0].relation = kRelationNotCaptured;
  m.result_classes = {{0, {0, 0}, "all variants agree", 2, {}}};
  m.result_class_of_point = {0, 0};
  return m;
}

TEST(DispatchJson, ACapturedMapSurvivesTheRoundTrip) {
  const Json j = captured_map();
  EXPECT_EQ(j["classes"][1].dump(),
            R"({"id":1,"label":"reduce_kernel<128, 4>","signature":"sig1","observations":3,)"
            R"("kernels":[{"name":"reduce_kernel<128, 4>","grid":[3,1,1],"block":[32,4,1],)"
            R"("registers":32,"static_smem":8,"dynamic_smem":0,"count":2,"duration_ns":7}]})");
  EXPECT_EQ(
      j["dispatch"][0].dump(),
      R"({"variant":"contiguous","class_of_point":[0,1],"rules":[)"
      R"({"class":0,"rule":{"text":"N % 4 != 0","exact":true,"matched":2,"considered":2}},)"
      R"({"class":1,"rule":{"text":"N % 4 == 0","exact":true,"matched":2,"considered":2}}]})");
  EXPECT_EQ(j["dispatch"][1]["rules"], Json::array());
  EXPECT_EQ(j["results"][0].dump(),
            R"({"variant":"padded:4","reference":"contiguous","points":2,"differing_points":1,)"
            R"("where_bits_differ":{"text":"N % 4 != 0","exact":true,"matched":2,"considered":2},)"
            R"("kernel_differing_points":1,"same_kernel_differences":0,"where_kernels_differ":)"
            R"({"text":"no simple rule","exact":false,"matched":0,"considered":2,)"
            R"("points":"N = 127"},"relation":"bits differ exactly where kernels differ"})");
  EXPECT_EQ(j["result_classes"][0].dump(),
            R"({"id":1,"label":"padded:4 differs","groups":[0,1],"points":1,)"
            R"("rule":{"text":"N % 4 != 0","exact":true,"matched":2,"considered":2}})");

  const DispatchMap back = j.get<DispatchMap>();
  EXPECT_EQ(back.classes[1].kernels[0].static_smem, 8u);
  EXPECT_EQ(back.classes[1].observations, 3);
  EXPECT_EQ(back.dispatch[0].class_rules[1].first, 1);
  EXPECT_EQ(back.dispatch[0].class_rules[1].second.text, "N % 4 == 0");
  EXPECT_EQ(back.results[0].kernel_differing_points, 1);
  EXPECT_EQ(back.results[0].where_kernels_differ.points, "N = 127");
  EXPECT_EQ(back.result_classes[0].rule.text, "N % 4 != 0");
  EXPECT_EQ(back.result_class_of_point, (std::vector<int>{1, 0}));
  EXPECT_EQ(Json(back).dump(), j.dump());
}

// What depends on the whole map: kernel comparisons only when captured, a result class's rule only
// among several. Read back, they take their defaults.
TEST(DispatchJson, AnUncapturedMapLeavesOutWhatItLacks) {
  const Json j = uncaptured_map();
  EXPECT_EQ(j["results"][0].dump(),
            R"({"variant":"padded:4","reference":"contiguous","points":2,"differing_points":1,)"
            R"("where_bits_differ":{"text":"N % 4 != 0","exact":true,"matched":2,"considered":2},)"
            R"("relation":"kernels not captured"})");
  EXPECT_EQ(j["result_classes"][0].dump(),
            R"({"id":0,"label":"all variants agree","groups":[0,0],"points":2})");
  EXPECT_EQ(j["classes"], Json::array());

  const DispatchMap back = j.get<DispatchMap>();
  EXPECT_FALSE(back.kernels_captured);
  EXPECT_EQ(back.results[0].kernel_differing_points, 0);
  EXPECT_EQ(back.results[0].where_kernels_differ.text, "");
  EXPECT_EQ(back.result_classes[0].rule.text, "");
  EXPECT_EQ(Json(back).dump(), j.dump());
}

// Control: the comparison above sees a field the reader drops.
TEST(DispatchJson, TheRoundTripComparisonSeesAChange) {
  const Json j = captured_map();
  DispatchMap back = j.get<DispatchMap>();
  back.classes[0].kernels[0].registers = 41;
  EXPECT_NE(Json(back).dump(), j.dump());
}

// The error reading `j` as a map: where (a JSON Pointer in the section) and what.
std::string read_error(const Json& j) {
  try {
    j.get<DispatchMap>();
  } catch (const FieldError& e) {
    return e.pointer() + ": " + e.what();
  }
  return "(read without an error)";
}

// (reports/model/report_reader.h puts these under the file and /dispatch: report_json_test.cpp.)
TEST(DispatchJson, ABadFieldNamesItsPath) {
  const Json good = captured_map();
  Json j = good;
  j["results"][0].erase("relation");
  EXPECT_EQ(read_error(j), "/results/0: missing field \"relation\"");
  j = good;
  j["classes"][1]["kernels"][0]["registers"] = "many";
  EXPECT_EQ(read_error(j), "/classes/1/kernels/0/registers: expected a number, got string");
  j = good;
  j["dispatch"][0]["rules"][1]["rule"]["exact"] = 1;
  EXPECT_EQ(read_error(j).rfind("/dispatch/0/rules/1/rule/exact: ", 0), 0u) << read_error(j);
  j = good;
  j["result_classes"] = "none";
  EXPECT_EQ(read_error(j), "/result_classes: expected an array, got string");
  j = good;
  j.erase("kernels_captured");
  EXPECT_EQ(read_error(j), ": missing field \"kernels_captured\"");
}

}  // namespace dispatch_json_test_file
}  // namespace samebits
