// The JSON report: schema and version first, fixed key order at every level, defaults and what
// the bits say left out, non-finite numbers as strings so the file stays valid JSON, and the
// terminal summary with surprises first.
#include "reports/model/json_report.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "common/atomic_file.h"
#include "common/file_text.h"
#include "reports/model/outcome.h"
#include "reports/model/report_reader.h"
#include "reports/render/report_writer.h"
#include "tests/reports/console_text.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace json_report_test_file {}
using namespace json_report_test_file;
namespace json_report_test_file {

std::vector<std::string> keys(const Json& object) {
  std::vector<std::string> out;
  for (const auto& item : object.items()) out.push_back(item.key());
  return out;
}

Mismatch one_mismatch() {
  Mismatch m;
  m.index = {1, 2};
  m.baseline = 1.0;
  m.variant = 1.0000001192092896;  // 1 + 2^-23
  m.baseline_bits = "0x3f800000";
  m.variant_bits = "0x3f800001";
  m.ulp = 1;
  return m;
}

CaseResult violated_case() {
  CaseResult c;
  c.id = "sum/determinism/aten/cpu/N=3";
  c.contract = "sum";
  c.check = "determinism";
  c.kind = CheckKind::determinism;
  c.impl = "aten";
  c.device = "cpu";
  c.params = Json::parse(R"({"N": 3, "dtype": "float32"})");
  c.seed = 0xfedcba9876543210ULL;
  c.verdict = Verdict::violated;
  c.expected = Expectation::holds;
  c.baseline = "first call";
  c.variant = "second call";
  c.comparison.mode = CompareMode::bitwise;
  OutputResult o;
  o.name = "out";
  o.baseline_sha256 = std::string(64, 'a');
  o.variant_sha256 = std::string(64, 'b');
  o.diff.mode = CompareMode::bitwise;
  o.diff.dtype = "float32";
  o.diff.shape = {2, 3};
  o.diff.numel = 6;
  o.diff.mismatched = 1;
  o.diff.mismatch_fraction = 1.0 / 6.0;
  o.diff.within = false;
  o.diff.max_abs_error = 1.1920928955078125e-07;
  o.diff.max_ulp = 1;
  o.diff.ulp_histogram = {{"0", 5}, {"1", 1}};
  o.diff.first_mismatches = {one_mismatch()};
  c.outputs = {o};
  c.duration_ms = 1.5;
  return c;
}

Report sample_report() {
  Report r;
  r.created = "2025-01-01T00:00:00Z";
  r.command = {"samebits", "run"};
  r.settings.device = "cpu";
  r.environment.torch.version = "2.11.0";
  r.contracts = {{"sum", "contracts/sum.json", std::string(64, 'c'), "sum", "x.sum(0)", "{}"}};
  r.cases = {violated_case()};
  r.checks = judge_checks(r.cases);
  r.summary = summarize(r.cases, r.checks);
  return r;
}

TEST(JsonReport, SchemaAndVersionComeFirst) {
  const Json j = report_to_json(sample_report());
  EXPECT_EQ(keys(j), (std::vector<std::string>{"schema", "schema_version", "created", "tool",
                                               "command", "settings", "environment", "contracts",
                                               "summary", "checks", "kernel_names",
                                               "kernel_launches", "property_names", "cases"}));
  EXPECT_EQ(j["schema"], "samebits.report");
  EXPECT_EQ(j["schema_version"], kReportSchemaVersion);
  EXPECT_TRUE(std::regex_match(std::string(kReportSchemaVersion), std::regex(R"(\d+\.\d+\.\d+)")))
      << "semantic version";
}

TEST(JsonReport, CaseKeyOrder) {
  Report r = sample_report();
  CaseResult& c = r.cases[0];
  c.expected_from = ExpectationSource::observation;
  c.observed_on = "xeon";
  c.reason = "why";
  c.comparison.mode = CompareMode::ulp;
  c.baseline_kernels = {KernelLaunch{"k", {1, 1, 1}, {32, 1, 1}, 8, 0, 0, 1, 10}};
  c.variant_kernels = c.baseline_kernels;
  c.baseline_properties = {{"N", 3}};
  c.variant_properties = {{"N", 3}};
  const Json j = report_to_json(r);
  EXPECT_EQ(keys(j["cases"][0]), (std::vector<std::string>{"id",
                                                           "contract",
                                                           "check",
                                                           "kind",
                                                           "impl",
                                                           "device",
                                                           "params",
                                                           "seed",
                                                           "verdict",
                                                           "expected",
                                                           "expected_from",
                                                           "observed_on",
                                                           "reason",
                                                           "baseline",
                                                           "variant",
                                                           "comparison",
                                                           "outputs",
                                                           "baseline_kernels",
                                                           "variant_kernels",
                                                           "baseline_properties",
                                                           "variant_properties",
                                                           "duration_ms"}));
  EXPECT_EQ(keys(j["cases"][0]["outputs"][0]),
            (std::vector<std::string>{"name", "baseline_sha256", "variant_sha256", "diff"}));
}

// Every diff field away from its default, in order; a mismatch whose bits do not give its values.
TEST(JsonReport, DiffAndMismatchKeyOrder) {
  DiffStats d = violated_case().outputs[0].diff;
  d.mode = CompareMode::allclose;
  d.max_rel_error = 0.5;
  d.nonfinite_mismatches = 1;
  d.tolerance = "rtol=0 atol=0";
  d.first_mismatches[0].baseline = 2.0;  // not what 0x3f800000 says
  d.first_mismatches[0].variant = 3.0;
  d.first_mismatches[0].ulp = 7;
  const Json diff = d;
  EXPECT_EQ(keys(diff),
            (std::vector<std::string>{"mode", "dtype", "shape", "numel", "mismatched",
                                      "mismatch_fraction", "within", "max_abs_error",
                                      "max_rel_error", "max_ulp", "nonfinite_mismatches",
                                      "ulp_histogram", "first_mismatches", "tolerance"}));
  EXPECT_EQ(keys(diff["first_mismatches"][0]),
            (std::vector<std::string>{"index", "baseline", "variant", "baseline_bits",
                                      "variant_bits", "ulp"}));
  EXPECT_EQ(keys(diff["ulp_histogram"]), (std::vector<std::string>{"0", "1"}));
}

TEST(JsonReport, CheckAndSummaryKeyOrder) {
  const Json j = report_to_json(sample_report());
  EXPECT_EQ(keys(j["checks"][0]),
            (std::vector<std::string>{"contract", "check", "kind", "impl", "device", "expected",
                                      "expected_from", "observed", "outcome", "planned", "cases",
                                      "held", "violated", "skipped", "errors", "crashed",
                                      "timed_out", "violations_by_axis"}));
  EXPECT_EQ(
      keys(j["summary"]),
      (std::vector<std::string>{"cases", "held", "violated", "skipped", "errors", "crashed",
                                "timed_out", "checks", "as_expected", "unexpected", "informational",
                                "findings", "not_observed", "exit_code", "duration_s"}));
  EXPECT_EQ(keys(j["contracts"][0]),
            (std::vector<std::string>{"name", "source", "sha256", "op", "description", "text"}));
}

TEST(JsonReport, EvidenceValues) {
  const Json j = report_to_json(sample_report());
  const Json& c = j["cases"][0];
  // A decimal string: a reader holding JSON numbers in doubles (jq, JavaScript) would print
  // 18364758544493064192 for this seed as a number, and that seed reproduces another case.
  ASSERT_TRUE(c["seed"].is_string());
  EXPECT_EQ(c["seed"], "18364758544493064720") << "the full 64-bit seed";
  EXPECT_NE(static_cast<std::uint64_t>(static_cast<double>(0xfedcba9876543210ULL)),
            0xfedcba9876543210ULL)
      << "as a double the seed would lose bits";
  EXPECT_FALSE(c.contains("comparison")) << "bitwise and nothing else: the default";
  EXPECT_EQ(c["kind"], "determinism");
  EXPECT_EQ(c["expected"], "holds");
  EXPECT_EQ(c["verdict"], "violated");
  const Json& m = c["outputs"][0]["diff"]["first_mismatches"][0];
  EXPECT_EQ(m["index"], Json::parse("[1, 2]"));
  EXPECT_EQ(m["baseline_bits"], "0x3f800000");
  EXPECT_EQ(m["variant_bits"], "0x3f800001");
  EXPECT_FALSE(m.contains("ulp")) << "0x3f800000 and 0x3f800001 are 1 ULP apart";
  EXPECT_EQ(j["checks"][0]["outcome"], "unexpected_violation");
  EXPECT_EQ(j["summary"]["exit_code"], 1);
}

// No max ULP (a non-finite pair differs): left out, the default. A mismatch's absent ULP that its
// bits would give: null, so the reader does not take the bits' word for it.
TEST(JsonReport, AbsentUlps) {
  CaseResult c = violated_case();
  c.outputs[0].diff.max_ulp.reset();
  c.outputs[0].diff.first_mismatches[0].ulp.reset();
  const Json j = c.outputs[0].diff;
  EXPECT_FALSE(j.contains("max_ulp"));
  ASSERT_TRUE(j["first_mismatches"][0].contains("ulp"));
  EXPECT_TRUE(j["first_mismatches"][0]["ulp"].is_null());
  const DiffStats back = j.get<DiffStats>();
  EXPECT_FALSE(back.max_ulp.has_value());
  EXPECT_FALSE(back.first_mismatches[0].ulp.has_value());
}

TEST(JsonReport, OptionalCaseFieldsAreLeftOut) {
  CaseResult c = violated_case();
  c.verdict = Verdict::skipped;
  c.baseline.clear();
  c.variant.clear();
  c.reason = "flash attention needs CUDA";
  c.outputs.clear();
  Report r = sample_report();
  r.cases = {c};
  const Json j = report_to_json(r)["cases"][0];
  EXPECT_EQ(j["reason"], "flash attention needs CUDA");
  EXPECT_FALSE(j.contains("baseline"));
  EXPECT_FALSE(j.contains("variant"));
  EXPECT_EQ(j["outputs"], Json::array());
}

struct NonFinite {
  std::string name;
  double value;
  Json written;
};
void PrintTo(const NonFinite& p, std::ostream* os) {
  *os << p.name;
}

class NonFiniteTest : public ::testing::TestWithParam<NonFinite> {};

// Each non-finite number goes into every double field that can hold one, then the report is
// written to a file and read back with a strict parser.
TEST_P(NonFiniteTest, WrittenAsValidJson) {
  const NonFinite& p = GetParam();
  Report r = sample_report();
  DiffStats& d = r.cases[0].outputs[0].diff;
  d.max_abs_error = p.value;
  d.max_rel_error = p.value;
  d.first_mismatches[0].baseline = p.value;
  d.first_mismatches[0].variant = p.value;
  const std::string path = ::testing::TempDir() + "samebits_nonfinite_" + p.name + "_" +
                           std::to_string(::getpid()) + ".json";
  JsonReportWriter(path).write(r);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path.c_str());
  Json back;
  ASSERT_NO_THROW(back = Json::parse(text.str())) << text.str();
  const Json& diff = back["cases"][0]["outputs"][0]["diff"];
  EXPECT_EQ(diff["max_abs_error"], p.written);
  EXPECT_EQ(diff["max_rel_error"], p.written);
  EXPECT_EQ(diff["first_mismatches"][0]["baseline"], p.written);
  EXPECT_EQ(diff["first_mismatches"][0]["variant"], p.written);
}

const NonFinite kNonFinite[] = {
    {"NaN", std::numeric_limits<double>::quiet_NaN(), "nan"},
    {"PositiveInfinity", std::numeric_limits<double>::infinity(), "inf"},
    {"NegativeInfinity", -std::numeric_limits<double>::infinity(), "-inf"},
    {"FiniteStaysANumber", 0.25, 0.25},
};

INSTANTIATE_TEST_SUITE_P(Report, NonFiniteTest, ::testing::ValuesIn(kNonFinite),
                         [](const ::testing::TestParamInfo<NonFinite>& info) {
                           return info.param.name;
                         });

TEST(JsonReportWriter, WritesOneNewlineTerminatedDocument) {
  const std::string path =
      ::testing::TempDir() + "samebits_writer_" + std::to_string(::getpid()) + ".json";
  JsonReportWriter(path).write(sample_report());
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path.c_str());
  ASSERT_FALSE(text.str().empty());
  EXPECT_EQ(text.str().back(), '\n');
  EXPECT_EQ(Json::parse(text.str()), report_to_json(sample_report()));
}

TEST(ConsoleSummary, SurprisesFirstThenTheTotals) {
  Report r = sample_report();
  CaseResult fine = violated_case();
  fine.check = "layout_invariance";
  fine.kind = CheckKind::layout_invariance;
  fine.id = "sum/layout_invariance/aten/cpu/N=3";
  fine.expected = Expectation::violated;
  r.cases = {fine, violated_case()};  // the expected violation first
  r.checks = judge_checks(r.cases);
  r.summary = summarize(r.cases, r.checks);
  const std::string text = console_summary_text(r);
  const auto surprise = text.find("FAIL new violation");
  const auto expected = text.find("ok\n");
  ASSERT_NE(surprise, std::string::npos) << text;
  ASSERT_NE(expected, std::string::npos) << text;
  EXPECT_LT(surprise, expected) << "surprises are listed first:\n" << text;
  EXPECT_NE(text.find("2 checks: 1 as expected, 1 unexpected"), std::string::npos) << text;
  EXPECT_NE(text.find("exit 1"), std::string::npos) << text;
}

// A report named .json.gz is written as gzip (atomically, like the plain one) and reads back.
TEST(JsonReportWriter, AGzNameWritesGzip) {
  if (!writes_gzip()) GTEST_SKIP() << "built without zlib";
  const std::string plain =
      ::testing::TempDir() + "samebits_gz_" + std::to_string(::getpid()) + ".json";
  const std::string gz = plain + ".gz";
  JsonReportWriter(plain).write(sample_report());
  JsonReportWriter(gz).write(sample_report());
  std::ifstream in(gz, std::ios::binary);
  char magic[2] = {0, 0};
  in.read(magic, 2);
  EXPECT_EQ(static_cast<unsigned char>(magic[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(magic[1]), 0x8b);
  EXPECT_EQ(read_file_text(gz, "the report"), read_file_text(plain, "the report"));
  EXPECT_LT(std::filesystem::file_size(gz), std::filesystem::file_size(plain));
  EXPECT_EQ(report_to_json(read_report_file(gz)), report_to_json(sample_report()));
  std::remove(plain.c_str());
  std::remove(gz.c_str());
}

// The rendered text parses back to the same document, one case per line, and a message that is not
// UTF-8 (bytes from a library's error) is repaired rather than failing the write.
TEST(RenderReport, RoundTripsWithOneCasePerLine) {
  Report r = sample_report();
  r.cases.push_back(r.cases.at(0));
  r.cases.back().id = "second";
  r.cases.back().reason = std::string("bad byte \xff here");
  const Json j = report_to_json(r);
  const std::string text = render_report(j);
  Json back = Json::parse(text);
  EXPECT_EQ(back["cases"][0], j["cases"][0]);
  EXPECT_EQ(back["summary"], j["summary"]);
  EXPECT_NE(back["cases"][1]["reason"].get<std::string>().find("bad byte"), std::string::npos);
  std::size_t case_lines = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("    {\"id\":", 0) == 0) ++case_lines;
  }
  EXPECT_EQ(case_lines, 2u) << text.substr(0, 2000);
}

}  // namespace json_report_test_file
}  // namespace samebits
