// The 3.0 case layout: fields at their defaults left out and restored, a mismatch's values and
// ULPs taken from its bits, kernel launches and property names in report-level tables.
#include "reports/model/case_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/errors.h"
#include "reports/model/json_report.h"
#include "reports/model/mismatch_bits.h"
#include "reports/model/outcome.h"
#include "reports/model/report_reader.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace case_json_test_file {}
using namespace case_json_test_file;
namespace case_json_test_file {

std::vector<std::string> keys(const Json& object) {
  std::vector<std::string> out;
  for (const auto& item : object.items()) out.push_back(item.key());
  return out;
}

// One float32 output of 6 elements, one of which differs by 1 ULP.
CaseResult violated_case() {
  CaseResult c;
  c.id = "sum/determinism/aten/cpu/N=3";
  c.contract = "sum";
  c.check = "determinism";
  c.impl = "aten";
  c.device = "cpu";
  c.params = Json::parse(R"({"N": 3})");
  c.verdict = Verdict::violated;
  c.expected = Expectation::holds;
  OutputResult o;
  o.name = "out";
  o.baseline_sha256 = std::string(64, 'a');
  o.variant_sha256 = std::string(64, 'b');
  o.diff.dtype = "float32";
  o.diff.shape = {2, 3};
  o.diff.numel = 6;
  o.diff.mismatched = 1;
  o.diff.mismatch_fraction = 1.0 / 6.0;
  o.diff.within = false;
  o.diff.max_abs_error = 1.1920928955078125e-07;
  o.diff.max_ulp = 1;
  o.diff.ulp_histogram = {{"0", 5}, {"1", 1}};
  o.diff.first_mismatches = {{{1, 2}, 1.0, 1.0000001192092896, "0x3f800000", "0x3f800001", 1}};
  c.outputs = {o};
  return c;
}

Report sample_report() {
  Report r;
  r.created = "2025-01-01T00:00:00Z";
  r.command = {"samebits", "run"};
  r.settings.device = "cpu";
  r.environment.torch.version = "2.11.0";
  r.cases = {violated_case()};
  r.checks = judge_checks(r.cases);
  r.summary = summarize(r.cases, r.checks);
  return r;
}

// 3.0: an output whose bits agree (most of a sweep) keeps only what describes it: the comparison
// at its default, zero errors and counts, no mismatches, and the histogram as its one non-zero
// count. Read back, it is the DiffStats harness/diff.cpp builds for such a pair.
TEST(CaseJson, AnIdenticalOutputLeavesItsDefaultsOut) {
  DiffStats same;
  same.dtype = "float32";
  same.shape = {1, 127};
  same.numel = 127;
  same.max_ulp = 0;
  same.ulp_histogram = {{"0", 127},    {"1", 0},         {"2-3", 0},    {"4-15", 0},
                        {"16-255", 0}, {"256-65535", 0}, {">=65536", 0}};
  const Json j = same;
  EXPECT_EQ(j, Json::parse(R"({"dtype": "float32", "shape": [1, 127], "numel": 127,
                               "max_ulp": 0, "ulp_histogram": [127]})"));
  const DiffStats back = j.get<DiffStats>();
  EXPECT_EQ(back.mode, CompareMode::bitwise);
  EXPECT_EQ(back.mismatched, 0);
  EXPECT_TRUE(back.within);
  EXPECT_EQ(back.max_ulp, std::optional<std::uint64_t>(0));
  EXPECT_EQ(back.ulp_histogram, same.ulp_histogram);
  EXPECT_TRUE(back.first_mismatches.empty());

  OutputResult o{"out", std::string(64, 'a'), std::string(64, 'a'), same};
  CaseResult c = violated_case();
  c.verdict = Verdict::holds;
  c.expected = Expectation::unknown;
  c.outputs = {o};
  const Json record = c;
  EXPECT_FALSE(record.contains("comparison")) << "bitwise, nothing else: the default";
  EXPECT_FALSE(record.contains("expected")) << "unknown: the default";
  EXPECT_FALSE(record.contains("expected_from")) << "promise: the default";
  const CaseResult read = record.get<CaseResult>();
  EXPECT_EQ(read.comparison.mode, CompareMode::bitwise);
  EXPECT_EQ(read.expected, Expectation::unknown);
  EXPECT_EQ(read.expected_from, ExpectationSource::promise);
}

// 3.2: a case whose platform records its check as "varies" carries the mark (report merge judges
// the shares' cases again, and the check's mark comes from them); left out when false.
TEST(CaseJson, TheVaryingMarkIsWrittenOnlyWhereSet) {
  CaseResult c = violated_case();
  c.expected = Expectation::unknown;
  c.expected_from = ExpectationSource::observation;
  c.observed_on = "h200";
  EXPECT_FALSE(Json(c).contains("recorded_varying"));
  EXPECT_FALSE(Json(c).get<CaseResult>().recorded_varying);
  c.recorded_varying = true;
  const Json record = c;
  EXPECT_EQ(record.at("recorded_varying"), true);
  const CaseResult read = record.get<CaseResult>();
  EXPECT_TRUE(read.recorded_varying);
  EXPECT_TRUE(judge_checks({read}).at(0).recorded_varying);
}

// A histogram over the standard buckets is its counts, trailing zeros cut; an integer output's
// (none) is left out; any other set of buckets stays an object.
TEST(CaseJson, UlpHistogramsAsCounts) {
  DiffStats d = violated_case().outputs[0].diff;
  d.ulp_histogram = {{"0", 104},    {"1", 7},         {"2-3", 6},    {"4-15", 8},
                     {"16-255", 0}, {"256-65535", 2}, {">=65536", 0}};
  EXPECT_EQ(Json(d)["ulp_histogram"], Json::parse("[104, 7, 6, 8, 0, 2]"));
  EXPECT_EQ(Json(d).get<DiffStats>().ulp_histogram, d.ulp_histogram);
  d.ulp_histogram.clear();
  EXPECT_FALSE(Json(d).contains("ulp_histogram"));
  EXPECT_TRUE(Json(d).get<DiffStats>().ulp_histogram.empty());
}

// A mismatch's values and ULPs are left out where its bits give them back exactly, whatever the
// dtype; an allclose reference in float64 beside a float32 output gives its value, but its ULPs
// (counted from the rounded reference) stay.
TEST(CaseJson, MismatchValuesComeFromTheirBits) {
  struct Row {
    const char* dtype;
    Mismatch m;
  };
  const Row rows[] = {
      {"float32",
       {{0, 96}, -0.2264389991760254, -0.2264409065246582, "0xbe67dfa0", "0xbe67e020", 128}},
      {"float16", {{1}, 1.0, 1.0009765625, "0x3c00", "0x3c01", 1}},
      {"bfloat16", {{1}, 1.0, -1.0, "0x3f80", "0xbf80", 2 * 0x3f80}},
      {"float64", {{2}, 1.0, 0.0, "0x3ff0000000000000", "0x0000000000000000", 0x3ff0000000000000}},
      {"int64", {{3}, -5, 7, "-5", "7", std::nullopt}},
  };
  for (const auto& row : rows) {
    DiffStats d;
    d.dtype = row.dtype;
    d.first_mismatches = {row.m};
    const Json j = d;
    EXPECT_EQ(keys(j["first_mismatches"][0]),
              (std::vector<std::string>{"index", "baseline_bits", "variant_bits"}))
        << row.dtype << ": " << j.dump();
    const Mismatch back = j.get<DiffStats>().first_mismatches.at(0);
    EXPECT_EQ(back.index, row.m.index) << row.dtype;
    EXPECT_EQ(back.baseline, row.m.baseline) << row.dtype;
    EXPECT_EQ(back.variant, row.m.variant) << row.dtype;
    EXPECT_EQ(back.ulp, row.m.ulp) << row.dtype;
  }
  DiffStats allclose;
  allclose.mode = CompareMode::allclose;
  allclose.dtype = "float32";
  allclose.first_mismatches = {
      {{0}, 0.1, 0.10000000149011612, "0x3fb999999999999a", "0x3dcccccd", 0}};
  const Json j = allclose;
  EXPECT_EQ(keys(j["first_mismatches"][0]),
            (std::vector<std::string>{"index", "baseline_bits", "variant_bits", "ulp"}));
  EXPECT_EQ(j["first_mismatches"][0]["ulp"], 0);
  EXPECT_EQ(j.get<DiffStats>().first_mismatches.at(0).baseline, 0.1);
}

// Kernel names appear once in kernel_names and launch shapes once in kernel_launches; each case's
// launches point at a shape by index with their own count (left out when 1) and duration.
TEST(CaseTables, KernelLaunchesAreListedOnceAndReferencedByIndex) {
  Report r = sample_report();
  r.cases.push_back(r.cases.at(0));
  KernelLaunch reduce{
      "void at::native::reduce_kernel<128, 4>(...)", {3, 1, 1}, {32, 4, 1}, 32, 16, 2048, 1, 3744};
  KernelLaunch copy = reduce;
  copy.name = "copy_kernel";
  copy.count = 2;
  KernelLaunch wider = reduce;
  wider.grid = {4, 1, 1};
  r.cases.at(0).baseline_kernels = {reduce};
  r.cases.at(0).variant_kernels = {copy, reduce};
  reduce.duration_ns = 3712;
  r.cases.at(1).baseline_kernels = {reduce, wider};
  const Json j = report_to_json(r);
  EXPECT_EQ(j["kernel_names"], Json::array({reduce.name, "copy_kernel"}));
  EXPECT_EQ(j["kernel_launches"], Json::parse(R"([
    {"name_id": 0, "grid": [3, 1, 1], "block": [32, 4, 1], "registers": 32, "static_smem": 16,
     "dynamic_smem": 2048},
    {"name_id": 1, "grid": [3, 1, 1], "block": [32, 4, 1], "registers": 32, "static_smem": 16,
     "dynamic_smem": 2048},
    {"name_id": 0, "grid": [4, 1, 1], "block": [32, 4, 1], "registers": 32, "static_smem": 16,
     "dynamic_smem": 2048}])"));
  EXPECT_EQ(j["cases"][0]["baseline_kernels"],
            Json::parse(R"([{"launch": 0, "duration_ns": 3744}])"));
  EXPECT_EQ(j["cases"][0]["variant_kernels"],
            Json::parse(R"([{"launch": 1, "count": 2, "duration_ns": 3744},
                            {"launch": 0, "duration_ns": 3744}])"));
  EXPECT_EQ(
      j["cases"][1]["baseline_kernels"],
      Json::parse(R"([{"launch": 0, "duration_ns": 3712}, {"launch": 2, "duration_ns": 3744}])"));
  const Report back = report_from_json(j, "mem");
  EXPECT_EQ(back.cases.at(0).variant_kernels.at(0).name, "copy_kernel");
  EXPECT_EQ(back.cases.at(0).variant_kernels.at(0).count, 2u);
  EXPECT_EQ(back.cases.at(1).baseline_kernels.at(0).duration_ns, 3712u);
  EXPECT_EQ(back.cases.at(1).baseline_kernels.at(1).grid, wider.grid);
  EXPECT_EQ(report_to_json(back), j);
}

// The first properties name the report's property_names; properties with exactly those names are
// written as their values, any others as an object.
TEST(CaseTables, PropertiesWithTheReportsNamesAreArrays) {
  Report r = sample_report();
  r.cases.at(0).baseline_properties = {{"N", 127}, {"row_stride", 127}, {"storage_offset", 0}};
  r.cases.at(0).variant_properties = {{"N", 127}, {"row_stride", 128}, {"storage_offset", 0}};
  r.cases.push_back(r.cases.at(0));
  r.cases.at(1).variant_properties = {{"N", 127}, {"k", 4}};
  const Json j = report_to_json(r);
  EXPECT_EQ(j["property_names"], Json::parse(R"(["N", "row_stride", "storage_offset"])"));
  EXPECT_EQ(j["cases"][0]["variant_properties"], Json::parse("[127, 128, 0]"));
  EXPECT_EQ(j["cases"][1]["variant_properties"], Json::parse(R"({"N": 127, "k": 4})"));
  const Report back = report_from_json(j, "mem");
  EXPECT_EQ(back.cases.at(0).variant_properties, r.cases.at(0).variant_properties);
  EXPECT_EQ(back.cases.at(1).variant_properties, r.cases.at(1).variant_properties);
}

// A journal line carries its own tables.
TEST(CaseTables, ACaseRecordCarriesItsTables) {
  CaseResult c = violated_case();
  c.baseline_kernels = {KernelLaunch{"k", {1, 1, 1}, {32, 1, 1}, 8, 0, 0, 1, 10}};
  c.baseline_properties = {{"N", 3}};
  const Json record = case_record_to_json(c);
  EXPECT_EQ(keys(record), (std::vector<std::string>{"case", "kernel_names", "kernel_launches",
                                                    "property_names"}));
  const CaseResult back = case_record_from_json(record, "journal", "");
  EXPECT_EQ(back.baseline_kernels.at(0).name, "k");
  EXPECT_EQ(back.baseline_properties, c.baseline_properties);
  EXPECT_EQ(case_record_to_json(back), record);
}

// Values from bits, against values worked out by hand: each format's 1.0, a subnormal, the
// infinities and NaNs, integers in decimal; what no dtype reads gives nothing.
TEST(MismatchBits, ValuesOfBits) {
  EXPECT_EQ(value_of_bits("0x3f800000", "float32"), 1.0);
  EXPECT_EQ(value_of_bits("0xc0490fdb", "float32"), static_cast<double>(-3.14159274101257324f));
  EXPECT_EQ(value_of_bits("0x3ff0000000000000", "float64"), 1.0);
  EXPECT_EQ(value_of_bits("0x3ff0000000000000", "float32"), 1.0) << "a float64 reference";
  EXPECT_EQ(value_of_bits("0x3c00", "float16"), 1.0);
  EXPECT_EQ(value_of_bits("0x0001", "float16"), std::ldexp(1.0, -24));
  EXPECT_EQ(value_of_bits("0xfbff", "float16"), -65504.0);
  EXPECT_EQ(value_of_bits("0x7c00", "float16"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(value_of_bits("0x3f80", "bfloat16"), 1.0);
  EXPECT_EQ(value_of_bits("0x4049", "bfloat16"), 3.140625);
  EXPECT_EQ(value_of_bits("0x38", "float8_e4m3fn"), 1.0);
  EXPECT_EQ(value_of_bits("0x7e", "float8_e4m3fn"), 448.0);
  EXPECT_TRUE(std::isnan(*value_of_bits("0x7f", "float8_e4m3fn")));
  EXPECT_EQ(value_of_bits("0x3c", "float8_e5m2"), 1.0);
  EXPECT_EQ(value_of_bits("0xfc", "float8_e5m2"), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(*value_of_bits("0x7fc00000", "float32")));
  EXPECT_EQ(value_of_bits("-12", "int64"), -12.0);
  EXPECT_EQ(value_of_bits("0x3c00", "float32"), std::nullopt) << "16 bits are no float32";
  EXPECT_EQ(value_of_bits("0x3F800000", "float32"), std::nullopt)
      << "element_bits writes lower case";
  EXPECT_EQ(value_of_bits("1", "bool"), std::nullopt);
  EXPECT_EQ(value_of_bits("0x3f80000g", "float32"), std::nullopt);
}

// ULPs from bits as harness/diff.h counts them: across zero the two distances add up, float64
// saturates at 2^63 - 1, a NaN or an infinity has none, nor do bits of two widths.
TEST(MismatchBits, UlpsOfBits) {
  EXPECT_EQ(ulp_of_bits("0x3f800000", "0x3f800001", "float32"), 1u);
  EXPECT_EQ(ulp_of_bits("0x00000001", "0x80000001", "float32"), 2u);
  EXPECT_EQ(ulp_of_bits("0x80000000", "0x00000000", "float32"), 0u) << "-0 and +0";
  EXPECT_EQ(ulp_of_bits("0x3c00", "0x3bff", "float16"), 1u);
  EXPECT_EQ(ulp_of_bits("0x7fefffffffffffff", "0xffefffffffffffff", "float64"),
            static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
  EXPECT_EQ(ulp_of_bits("0x7f800000", "0x3f800000", "float32"), std::nullopt);
  EXPECT_EQ(ulp_of_bits("0x3ff0000000000000", "0x3f800000", "float32"), std::nullopt);
  EXPECT_EQ(ulp_of_bits("1", "2", "int64"), std::nullopt);
}

// A reference to no launch, or property values that do not match the report's names, are refused
// with the case's path.
TEST(CaseTables, ADanglingReferenceNamesItsPath) {
  Report r = sample_report();
  r.cases.at(0).baseline_kernels = {KernelLaunch{"k", {1, 1, 1}, {32, 1, 1}, 8, 0, 0, 1, 10}};
  r.cases.at(0).baseline_properties = {{"N", 3}};
  Json j = report_to_json(r);
  j["cases"][0]["baseline_kernels"][0]["launch"] = 1;
  try {
    report_from_json(j, "r.json");
    FAIL() << "read a launch that is not in the table";
  } catch (const ContractError& e) {
    EXPECT_NE(
        std::string(e.what()).find(
            "r.json: /cases/0/baseline_kernels/0/launch: no kernel launch 1 (the report lists 1)"),
        std::string::npos)
        << e.what();
  }
  j = report_to_json(r);
  j["cases"][0]["baseline_properties"] = Json::parse("[3, 4]");
  EXPECT_THROW(report_from_json(j, "r.json"), ContractError);
  j = report_to_json(r);
  j["kernel_launches"][0]["name_id"] = 5;
  try {
    report_from_json(j, "r.json");
    FAIL() << "read a launch of no kernel name";
  } catch (const ContractError& e) {
    EXPECT_NE(std::string(e.what()).find("r.json: /kernel_launches/0/name_id: no kernel name 5"),
              std::string::npos)
        << e.what();
  }
  j = report_to_json(r);
  j["cases"][0]["outputs"][0]["diff"]["ulp_histogram"] = Json::parse("[1, 2, 3, 4, 5, 6, 7, 8]");
  EXPECT_THROW(report_from_json(j, "r.json"), ContractError);
}

}  // namespace case_json_test_file
}  // namespace samebits
