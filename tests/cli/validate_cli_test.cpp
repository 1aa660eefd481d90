// `samebits validate` and the input guards of run and sweep: every broken file reported, and what
// run would refuse (a dtype, a size, a missing axis, a device) refused first, with exit 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "tests/cli/cli_fixture.h"

namespace samebits {
namespace {

class ValidateCli : public CliTest {
 protected:
  // A contract of `op` with implementation `impl` and one check (its fields but "expect"),
  // written to dir/NAME.json.
  fs::path contract_file(const std::string& name, const std::string& op, const std::string& sweep,
                         const std::string& check, const std::string& impl = "aten") {
    const fs::path path = dir / (name + ".json");
    write_text(path, R"({"op": ")" + op + R"(", "implementations": [")" + impl +
                         R"("], "sweep": )" + sweep + R"(, "checks": [{)" + check +
                         R"(, "expect": {")" + impl + R"(": "unknown"}}]})");
    return path;
  }
  fs::path sum_file(const std::string& name, const std::string& sweep,
                    const std::string& check_sweep) {
    return contract_file(name, "sum", sweep,
                         R"("kind": "layout_invariance", "sweep": )" + check_sweep);
  }
  // Exit 2 from validate, and from run before any case (no report), each saying `says`.
  void refused_everywhere(const fs::path& path, const std::string& says) {
    refused_everywhere({{path, says}});
  }
  // The same for several files, each with what it says: validate takes them at once (it reports
  // every broken file, each on a line naming it), run one by one (it stops at the first).
  void refused_everywhere(const std::vector<std::pair<fs::path, std::string>>& refusals) {
    std::string files;
    for (const auto& [path, says] : refusals) files += " " + quoted(path);
    const Result all = samebits("validate" + files);
    EXPECT_EQ(all.exit_code, 2) << explain(all);
    EXPECT_EQ(all.err.find("internal error"), std::string::npos) << explain(all);
    const auto named = lines(all.err);
    for (const auto& [path, says] : refusals) {
      EXPECT_TRUE(std::any_of(named.begin(), named.end(),
                              [&](const std::string& line) {
                                return line.rfind(path.string() + ": ", 0) == 0 &&
                                       line.find(says) != std::string::npos;
                              }))
          << path << " does not say " << says << "\n"
          << explain(all);
      EXPECT_EQ(all.out.find("ok: " + path.string()), std::string::npos) << explain(all);
      const Result run = samebits(run_args(path));
      EXPECT_EQ(run.exit_code, 2) << path << "\n" << explain(run);
      EXPECT_NE(run.err.find(says), std::string::npos) << path << "\n" << explain(run);
      EXPECT_EQ(run.err.find("internal error"), std::string::npos) << explain(run);
    }
    EXPECT_FALSE(fs::exists(report)) << "refused before any case ran";
  }
  bool cpu_only() {
    return samebits("list").out.find("CPU only, no CUDA GPU visible") != std::string::npos;
  }
};

const char* const kDeterminism = R"("kind": "determinism")";

// A folder with three broken contracts around a good one: each is named with its error (they
// used to stop at the first), the good one is still checked, and the exit code is 2.
TEST_F(ValidateCli, ReportsEveryBrokenFileOfAFolder) {
  const fs::path folder = dir / "contracts";
  fs::create_directories(folder);
  write_text(folder / "a_unknown_op.json", R"({"op": "nosuchop", "implementations": ["aten"],
    "checks": [{"kind": "determinism", "expect": {"aten": "holds"}}]})");
  write_text(folder / "b_good.json", kTiny);
  write_text(folder / "c_malformed.json", "{\n  \"op\": \"sum\",\n  \"implementations\" [\n");
  write_text(folder / "d_unknown_axis.json", R"({"op": "sum", "implementations": ["aten"],
    "sweep": {"N": [3], "colums": [2]},
    "checks": [{"kind": "determinism", "expect": {"aten": "holds"}}]})");
  const Result r = samebits("validate " + quoted(folder));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  const std::string f = folder.string();
  for (const std::string& says :
       {f + "/a_unknown_op.json: /op: unknown op \"nosuchop\"", f + "/c_malformed.json:3:",
        f + "/d_unknown_axis.json: /sweep/colums: unknown axis \"colums\"",
        std::string("3 of 4 contract files are broken")}) {
    EXPECT_NE(r.err.find(says), std::string::npos) << says << "\n" << explain(r);
  }
  EXPECT_NE(r.out.find("ok: " + f + "/b_good.json"), std::string::npos) << explain(r);
}

// Files named one by one, and a contract name two files share: each reported, the first file of
// the name kept.
TEST_F(ValidateCli, ReportsEveryBrokenFileNamed) {
  const fs::path twin = dir / "twin.json";
  write_text(twin, kTiny);  // also named "tiny"
  const fs::path missing = dir / "missing.json";
  const Result r =
      samebits("validate " + quoted(missing) + " " + quoted(contract) + " " + quoted(twin));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find(missing.string() + ": "), std::string::npos) << explain(r);
  EXPECT_NE(r.err.find(twin.string() + ": contract name \"tiny\" is already used by " +
                       contract.string()),
            std::string::npos)
      << explain(r);
  EXPECT_NE(r.out.find("ok: " + contract.string()), std::string::npos) << explain(r);
  EXPECT_NE(r.err.find("2 of 3 contract files are broken"), std::string::npos) << explain(r);
}

// softmax in float8 passed validate, then every case failed at run time (exit 3): an op's dtype
// axis now names what its calls take. float64, which they take, is the control.
TEST_F(ValidateCli, DtypeTheOpDoesNotTakeIsRefused) {
  struct Bad {
    std::string op, impl, sweep, dtype;
  };
  std::vector<std::pair<fs::path, std::string>> refusals;
  for (const Bad& b :
       {Bad{"softmax", "aten", R"({"N": [8], "dtype": ["float8_e4m3fn"]})", "float8_e4m3fn"},
        Bad{"log_softmax", "aten", R"({"N": [8], "dtype": ["float8_e5m2"]})", "float8_e5m2"},
        Bad{"sort", "aten.stable", R"({"N": [8], "dtype": ["float8_e4m3fn"]})", "float8_e4m3fn"},
        Bad{"topk", "aten.topk", R"({"N": [8], "k": [2], "dtype": ["int32"]})", "int32"},
        Bad{"sum", "aten", R"({"N": [8], "dtype": ["float8_e4m3fn"]})", "float8_e4m3fn"},
        Bad{"rmsnorm", "aten.composed", R"({"D": [8], "dtype": ["int64"]})", "int64"}}) {
    refusals.emplace_back(contract_file(b.op, b.op, b.sweep, kDeterminism, b.impl),
                          "/sweep/dtype/0: op " + b.op + " does not take dtype \"" + b.dtype +
                              "\"; accepted: float32, float16, bfloat16, float64");
  }
  refused_everywhere(refusals);
  const Result control = samebits(
      "validate " +
      quoted(contract_file("ok", "softmax", R"({"N": [8], "dtype": ["float64"]})", kDeterminism)));
  EXPECT_EQ(control.exit_code, 0) << explain(control);
}

// A layout's gap, offset or padding and a padding check's lengths were not held to the size
// guard: validate said ok, then run asked for terabytes and exited 3. Each is refused now at the
// value's JSON path; modest amounts (the controls) are not.
TEST_F(ValidateCli, LayoutAmountsAndLengthsMeetTheSizeGuard) {
  const std::string big = "1099511627776";  // 2^40
  std::vector<std::pair<fs::path, std::string>> refusals;
  for (const char* kind : {"strided", "offset", "padded"}) {
    const std::string layout = std::string(kind) + ":" + big;
    refusals.emplace_back(sum_file(std::string("layout_") + kind, R"({"rows": [2], "N": [8]})",
                                   R"({"layout": ["strided:1", ")" + layout + R"("]})"),
                          "/checks/0/sweep/layout/1: impossible point rows=2,N=8,layout=" + layout +
                              " on cpu: layout \"" + layout + "\": one call would hold ");
  }
  // 2^26 rows of 64 columns (2^32 elements) are at the limit; strided:1 widens each row.
  refusals.emplace_back(
      sum_file("rows", R"({"rows": [67108864], "N": [64]})", R"({"layout": ["strided:1"]})"),
      "layout \"strided:1\": one call would hold 4.36e+09 elements");
  refusals.emplace_back(
      contract_file("lengths", "softmax", R"({"N": [8]})",
                    R"("kind": "padding_invariance", "sweep": {"padding": ["right"], )"
                    R"("lengths": [[3, 5], [7, 1099511627776]]})"),
      "/checks/0/sweep/lengths/1: impossible point N=8,padding=right,lengths=7_1099511627776 on "
      "cpu: lengths up to 1099511627776: one call would hold 2.2e+12 elements");
  // An amount past int64 is no layout at all (it was an internal error).
  refusals.emplace_back(
      sum_file("overflow", R"({"rows": [2], "N": [8]})",
               R"({"layout": ["strided:99999999999999999999"]})"),
      "/checks/0/sweep/layout/0: unknown layout \"strided:99999999999999999999\"");
  refused_everywhere(refusals);
  const Result control =
      samebits("validate " +
               quoted(sum_file("fine", R"({"rows": [2], "N": [8]})",
                               R"({"layout": ["strided:4096", "offset:4096", "padded:64"]})")));
  EXPECT_EQ(control.exit_code, 0) << explain(control);
}

// An axis without a default given for one device only: it used to end validate with "internal
// error: point has no axis N" (exit 3). It is refused, naming the axis and the device without
// values; an axis with a default may leave a device out (the default applies there).
TEST_F(ValidateCli, RequiredAxisOnOneDeviceOnlyIsRefused) {
  refused_everywhere(
      sum_file("one_device", R"({"N": {"cpu": [7, 100]}})", R"({"layout": ["offset:1"]})"),
      "/sweep/N: axis \"N\" has values for cpu but none for cuda, and has no "
      "default: give it \"cuda\" (or \"any\") values");
  const Result control =
      samebits("validate " + quoted(sum_file("defaulted", R"({"N": [7], "rows": {"cpu": [2]}})",
                                             R"({"layout": ["offset:1"]})")));
  EXPECT_EQ(control.exit_code, 0) << explain(control);
}

// What a bundled kernel cannot take (top-k beyond radix_select's k of 16384, float64 sums) made
// its cases errors, and the run exit 3: they are skipped with the limit as their reason, while
// ATen's cases beside them run.
TEST_F(ValidateCli, BundledKernelLimitsAreSkipsNotErrors) {
  struct Limit {
    std::string op, aten, sweep, says;
  };
  for (const Limit& l : {Limit{"topk", "aten.topk", R"({"N": [20000], "k": [20000]})",
                               "samebits.topk takes k <= 16384 (radix_select's limit), not "
                               "k=20000"},
                         Limit{"sum", "aten", R"({"rows": [2], "N": [8], "dtype": ["float64"]})",
                               "samebits.sum takes float32, float16 or bfloat16, not float64"}}) {
    const fs::path path = dir / (l.op + ".json");
    write_text(path, R"({"op": ")" + l.op + R"(", "implementations": [")" + l.aten +
                         R"(", "samebits"], "sweep": )" + l.sweep +
                         R"(, "checks": [{"kind": "determinism", "sweep": {"batch": [1]}, )"
                         R"("expect": {")" +
                         l.aten + R"(": "holds", "samebits": "holds"}}]})");
    const Result r = samebits(run_args(path));
    EXPECT_EQ(r.exit_code, 0) << explain(r);
    ASSERT_TRUE(fs::exists(report)) << explain(r);
    const Json j = Json::parse(read_text(report));
    ASSERT_EQ(j["cases"].size(), 2u);
    for (const auto& c : j["cases"]) {
      const bool bundled = c["impl"] == "samebits";
      EXPECT_EQ(c["verdict"], bundled ? "skipped" : "holds") << c.dump();
      if (bundled) {
        EXPECT_EQ(c["reason"], l.says) << c.dump();
      }
    }
    fs::remove(report);
  }
}

// A --case id on cuda where no GPU is visible: a usage error before anything runs (it was exit 3).
TEST_F(ValidateCli, CudaCaseWithoutAGpuIsAUsageError) {
  if (!cpu_only()) GTEST_SKIP() << "a CUDA GPU is visible: the case could run";
  const Result r = samebits("run " + quoted(contract) + " --report " + quoted(report) +
                            " --case tiny/determinism/aten/cuda/rows=2,N=3");
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("no CUDA GPU is visible here"), std::string::npos) << explain(r);
  EXPECT_FALSE(fs::exists(report));
  const Result cpu = samebits("run " + quoted(contract) + " --report " + quoted(report) +
                              " --case tiny/determinism/aten/cpu/rows=2,N=3");
  EXPECT_EQ(cpu.exit_code, 0) << "the control, its CPU twin: " << explain(cpu);
}

// --devices all where no GPU is visible is the same usage error, and `run --dry-run --capture on`
// on the CPU is refused too (the plan checks it, before any line of a run).
TEST_F(ValidateCli, DevicesAllWithoutAGpuIsAUsageError) {
  if (!cpu_only()) GTEST_SKIP() << "a CUDA GPU is visible: --devices all could run";
  Result r = samebits("run " + quoted(contract) + " --devices all --report " + quoted(report));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("--devices all: no CUDA GPU is visible here"), std::string::npos)
      << explain(r);
  r = samebits("run " + quoted(contract) + " --device cpu --dry-run --capture on");
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("--capture on"), std::string::npos) << explain(r);
  EXPECT_EQ(r.out, "") << "nothing planned is listed";
}

// Kernel capture on demand where there is nothing to capture (the CPU): exit 2, not 3, and no
// report; --capture auto is the control.
TEST_F(ValidateCli, CaptureOnOnTheCpuIsAUsageError) {
  const std::string sweep =
      "sweep sum --set rows=2 --vary N=3:4 --device cpu --report " + quoted(report) + " --capture ";
  const Result r = samebits(sweep + "on");
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("--capture on: kernel capture records CUDA kernels"), std::string::npos)
      << explain(r);
  EXPECT_FALSE(fs::exists(report));
  const Result control = samebits(sweep + "auto");
  EXPECT_EQ(control.exit_code, 0) << explain(control);
}

}  // namespace
}  // namespace samebits
