// Sweep expansion: the cartesian product with the first axis varying slowest, per-device values,
// axes absent on a device, point counts, and the labels that case ids are made of.
#include "cases/sweep.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "contracts/contract.h"

namespace samebits {
namespace {

// The sweep of a contract whose "sweep" is `sweep_json`.
SweepDecl sweep_of(const std::string& sweep_json) {
  return parse_contract(R"({"op": "x", "implementations": ["a"], "sweep": )" + sweep_json +
                            R"(, "checks": [{"kind": "determinism", "expect": {"a": "holds"}}]})",
                        "sweep.json")
      .sweep;
}

struct Expansion {
  std::string name;
  std::string sweep;
  std::string device;
  std::vector<std::string> labels;  // in expansion order
};
void PrintTo(const Expansion& p, std::ostream* os) {
  *os << p.name;
}

class ExpansionTest : public ::testing::TestWithParam<Expansion> {};

TEST_P(ExpansionTest, LabelsInOrder) {
  const Expansion& e = GetParam();
  const auto points = expand_sweep(sweep_of(e.sweep), e.device);
  std::vector<std::string> labels;
  for (const auto& p : points) labels.push_back(p.label());
  EXPECT_EQ(labels, e.labels) << e.sweep << " on " << e.device;
}

TEST_P(ExpansionTest, CountMatchesExpansion) {
  const Expansion& e = GetParam();
  EXPECT_EQ(count_points(sweep_of(e.sweep), e.device), e.labels.size()) << e.sweep;
}

const Expansion kExpansions[] = {
    {"NoAxesIsOneEmptyPoint", "{}", "cpu", {""}},
    {"OneAxis", R"({"N": [3, 1, 2]})", "cpu", {"N=3", "N=1", "N=2"}},
    {"FirstAxisSlowest",
     R"({"a": [1, 2], "b": ["x", "y", "z"]})",
     "cpu",
     {"a=1,b=x", "a=1,b=y", "a=1,b=z", "a=2,b=x", "a=2,b=y", "a=2,b=z"}},
    {"ThreeAxesOdometer",
     R"({"a": [1, 2], "b": [true, false], "c": [0.5]})",
     "cpu",
     {"a=1,b=true,c=0.5", "a=1,b=false,c=0.5", "a=2,b=true,c=0.5", "a=2,b=false,c=0.5"}},
    {"SingleValueAxesStayInTheLabel",
     R"({"rows": [64], "N": [5, 6]})",
     "cpu",
     {"rows=64,N=5", "rows=64,N=6"}},
    {"PerDeviceValuesOnCpu",
     R"({"N": {"cpu": [1, 2], "cuda": [3, 4, 5]}, "d": ["f"]})",
     "cpu",
     {"N=1,d=f", "N=2,d=f"}},
    {"PerDeviceValuesOnCuda",
     R"({"N": {"cpu": [1, 2], "cuda": [3, 4, 5]}, "d": ["f"]})",
     "cuda",
     {"N=3,d=f", "N=4,d=f", "N=5,d=f"}},
    {"AnyCoversADeviceWithoutItsOwnList", R"({"N": {"any": [7], "cuda": [8]}})", "cpu", {"N=7"}},
    {"DeviceListBeatsAny", R"({"N": {"any": [7], "cuda": [8]}})", "cuda", {"N=8"}},
    {"AxisAbsentOnCpu",
     R"({"N": [1, 2], "stream": {"cuda": ["s1", "s2"]}})",
     "cpu",
     {"N=1", "N=2"}},
    {"AxisPresentOnCuda",
     R"({"N": [1, 2], "stream": {"cuda": ["s1", "s2"]}})",
     "cuda",
     {"N=1,stream=s1", "N=1,stream=s2", "N=2,stream=s1", "N=2,stream=s2"}},
    {"ArraysJoinedByUnderscores",
     R"({"lengths": [[100, 37], [5], [1, 2, 3]]})",
     "cpu",
     {"lengths=100_37", "lengths=5", "lengths=1_2_3"}},
    {"RangeExpands", R"({"N": {"range": [1, 10, 4]}})", "cpu", {"N=1", "N=5", "N=9"}},
};

INSTANTIATE_TEST_SUITE_P(Sweep, ExpansionTest, ::testing::ValuesIn(kExpansions),
                         [](const ::testing::TestParamInfo<Expansion>& info) {
                           return info.param.name;
                         });

TEST(Sweep, PointValuesKeepTheirTypes) {
  const auto points = expand_sweep(sweep_of(R"({"N": [5], "dtype": ["float32"], "flag": [true],
                                               "lengths": [[4, 2]], "scale": [0.25]})"),
                                   "cpu");
  ASSERT_EQ(points.size(), 1u);
  const Point& p = points[0];
  EXPECT_EQ(p.integer("N"), 5);
  EXPECT_EQ(p.text("dtype"), "float32");
  EXPECT_TRUE(p.flag_or("flag", false));
  EXPECT_EQ(p.integers("lengths"), (std::vector<std::int64_t>{4, 2}));
  EXPECT_EQ(p.real("scale"), 0.25);
  EXPECT_EQ(p.real("N"), 5.0) << "an integer is also a number";
}

TEST(Sweep, CountSaturatesInsteadOfOverflowing) {
  // Five axes of 10^4 values: 10^20 points, more than 2^64 (about 1.8e19).
  SweepDecl sweep;
  for (int a = 0; a < 5; ++a) {
    AxisDecl axis;
    axis.name = "axis" + std::to_string(a);
    auto& values = axis.values_by_device["any"];
    for (int v = 0; v < 10'000; ++v) values.emplace_back(v);
    sweep.axes.push_back(std::move(axis));
  }
  EXPECT_EQ(count_points(sweep, "cpu"), std::numeric_limits<std::uint64_t>::max());
}

TEST(Sweep, CountOfFourAxes) {
  EXPECT_EQ(count_points(sweep_of(R"({"a": [1, 2], "b": [1, 2, 3], "c": {"cuda": [1, 2]},
                                      "d": {"range": [1, 5]}})"),
                         "cpu"),
            30u);
  EXPECT_EQ(count_points(sweep_of(R"({"a": [1, 2], "b": [1, 2, 3], "c": {"cuda": [1, 2]},
                                      "d": {"range": [1, 5]}})"),
                         "cuda"),
            60u);
}

struct LabelValue {
  std::string name;
  std::string json;
  std::string text;
};
void PrintTo(const LabelValue& p, std::ostream* os) {
  *os << p.name;
}

class FormatAxisValueTest : public ::testing::TestWithParam<LabelValue> {};

TEST_P(FormatAxisValueTest, AsInLabels) {
  EXPECT_EQ(format_axis_value(Json::parse(GetParam().json)), GetParam().text);
}

const LabelValue kLabelValues[] = {
    {"Integer", "131", "131"},
    {"Negative", "-2", "-2"},
    {"String", "\"padded:4\"", "padded:4"},
    {"Boolean", "false", "false"},
    {"Fraction", "0.5", "0.5"},
    {"Array", "[100, 37]", "100_37"},
    {"ArrayOfStrings", "[\"a\", \"b\"]", "a_b"},
};

INSTANTIATE_TEST_SUITE_P(Sweep, FormatAxisValueTest, ::testing::ValuesIn(kLabelValues),
                         [](const ::testing::TestParamInfo<LabelValue>& info) {
                           return info.param.name;
                         });

TEST(Point, LabelFollowsInsertionOrder) {
  Point p;
  p.set("N", 131);
  p.set("dtype", "float32");
  p.set("lengths", Json::array({100, 37}));
  EXPECT_EQ(p.label(), "N=131,dtype=float32,lengths=100_37");
}

TEST(Point, MissingAxisNamesTheAxis) {
  const Point p;
  try {
    p.integer("N");
    FAIL() << "reading a missing axis must throw";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("\"N\""), std::string::npos) << e.what();
  }
}

TEST(Point, WrongTypeNamesTheAxisAndValue) {
  Point p;
  p.set("N", "five");
  try {
    p.integer("N");
    FAIL() << "reading a string as an integer must throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("\"N\" must be an integer, got \"five\""),
              std::string::npos)
        << e.what();
  }
}

TEST(Point, FallbacksApplyOnlyToMissingAxes) {
  Point p;
  p.set("batch", 3);
  EXPECT_EQ(p.integer_or("batch", 8), 3);
  EXPECT_EQ(p.integer_or("chunk", 8), 8);
  EXPECT_EQ(p.text_or("layout", "contiguous"), "contiguous");
  EXPECT_EQ(p.real_or("scale", 0.5), 0.5);
}

}  // namespace
}  // namespace samebits
