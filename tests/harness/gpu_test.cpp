// GPU tests (label "gpu"; skipped without a CUDA GPU): CUDA comparisons match the CPU's, a second
// stream determinism check really runs on CUDA, and the negative controls are caught on CUDA too.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/device_choice.h"
#include "harness/diff.h"
#include "reports/model/outcome.h"
#include "tests/support/control_contract.h"
#include "tests/support/control_op.h"
#include "tests/support/run_contracts.h"
#include "tests/support/tensor_bits.h"
#include "tests/support/test_names.h"

namespace samebits {
namespace {

#define SAMEBITS_REQUIRE_CUDA() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU visible"

// Baseline and variant (float32) with a mix of agreement, ULP-level differences, signed zeros,
// NaNs and infinities: [1, 1+1ulp, 1+3ulps, +0, -0, NaN, NaN, +inf, 1000, 0.5].
at::Tensor mixed_baseline() {
  return from_bits(at::kFloat, {0x3f800000, 0x3f800000, 0x3f800000, 0x00000000, 0x80000000,
                                0x7fc00000, 0x7fc00000, 0x7f800000, 0x447a0000, 0x3f000000});
}
at::Tensor mixed_variant() {
  return from_bits(at::kFloat, {0x3f800000, 0x3f800001, 0x3f800003, 0x80000000, 0x80000000,
                                0x7fc00000, 0x3f800000, 0x7f800000, 0x447a0016, 0x3f000001});
}

struct ModeCase {
  std::string name;
  Comparison how;
};
void PrintTo(const ModeCase& p, std::ostream* os) {
  *os << p.name;
}

class CudaCompareTest : public ::testing::TestWithParam<ModeCase> {};

TEST_P(CudaCompareTest, SameStatsAsOnTheCpu) {
  SAMEBITS_REQUIRE_CUDA();
  const at::Tensor b = mixed_baseline().view({2, 5});
  const at::Tensor v = mixed_variant().view({2, 5});
  const DiffStats cpu = compare_tensors(b, v, GetParam().how);
  const DiffStats cuda = compare_tensors(b.cuda(), v.cuda(), GetParam().how);
  ASSERT_GT(cpu.mismatched, 0) << "the inputs must differ somewhere";
  EXPECT_EQ(cuda.mismatched, cpu.mismatched);
  EXPECT_EQ(cuda.within, cpu.within);
  EXPECT_EQ(cuda.max_ulp, cpu.max_ulp);
  EXPECT_EQ(cuda.nonfinite_mismatches, cpu.nonfinite_mismatches);
  EXPECT_DOUBLE_EQ(cuda.max_abs_error, cpu.max_abs_error);
  EXPECT_EQ(cuda.ulp_histogram, cpu.ulp_histogram);
  EXPECT_EQ(cuda.tolerance, cpu.tolerance);
  ASSERT_EQ(cuda.first_mismatches.size(), cpu.first_mismatches.size());
  for (std::size_t i = 0; i < cpu.first_mismatches.size(); ++i) {
    EXPECT_EQ(cuda.first_mismatches[i].index, cpu.first_mismatches[i].index) << i;
    EXPECT_EQ(cuda.first_mismatches[i].baseline_bits, cpu.first_mismatches[i].baseline_bits) << i;
    EXPECT_EQ(cuda.first_mismatches[i].variant_bits, cpu.first_mismatches[i].variant_bits) << i;
    EXPECT_EQ(cuda.first_mismatches[i].ulp, cpu.first_mismatches[i].ulp) << i;
  }
}

Comparison mode(CompareMode m, std::int64_t max_ulp = 0, bool equal_nan = false) {
  Comparison c;
  c.mode = m;
  c.max_ulp = max_ulp;
  c.equal_nan = equal_nan;
  return c;
}

const ModeCase kModes[] = {
    {"Bitwise", mode(CompareMode::bitwise)},
    {"UlpWithinOne", mode(CompareMode::ulp, 1)},
    {"UlpEqualNan", mode(CompareMode::ulp, 0, true)},
    {"AllcloseDefaults", mode(CompareMode::allclose)},
    {"AllcloseEqualNan", mode(CompareMode::allclose, 0, true)},
};

INSTANTIATE_TEST_SUITE_P(Gpu, CudaCompareTest, ::testing::ValuesIn(kModes),
                         [](const ::testing::TestParamInfo<ModeCase>& info) {
                           return info.param.name;
                         });

TEST(GpuDiff, DigestOfACudaTensorIsThatOfItsCpuCopy) {
  SAMEBITS_REQUIRE_CUDA();
  const at::Tensor x = at::arange(24, at::kFloat).view({2, 3, 4});
  EXPECT_EQ(tensor_sha256(x.cuda()), tensor_sha256(x));
  EXPECT_EQ(tensor_sha256(x.cuda().transpose(0, 2)), tensor_sha256(x.transpose(0, 2)));
  // Both sides of a pair on the GPU travel in one copy: each keeps its own digest.
  const auto [a, b] = tensor_sha256_pair(x.cuda().transpose(0, 2), x.cuda().to(at::kHalf));
  EXPECT_EQ(a, tensor_sha256(x.transpose(0, 2)));
  EXPECT_EQ(b, tensor_sha256(x.to(at::kHalf)));
  const auto [c, d] = tensor_sha256_pair(at::zeros({0}, at::kCUDA), x.cuda().gt(5));
  EXPECT_EQ(c, tensor_sha256(at::zeros({0})));
  EXPECT_EQ(d, tensor_sha256(x.gt(5)));
}

// Small same-dtype pairs come to the host in one copy, bit for bit; others stay where they are.
TEST(GpuDiff, SmallPairsComeToTheHostWhole) {
  SAMEBITS_REQUIRE_CUDA();
  const at::Tensor x = at::randn({3, 5, 7}).to(at::kBFloat16);
  const at::Tensor y = at::randn({35, 3}).to(at::kBFloat16);
  const auto host = small_pair_on_host(x.cuda().transpose(0, 2), y.cuda());
  ASSERT_TRUE(host.has_value());
  EXPECT_TRUE(host->first.device().is_cpu());
  EXPECT_EQ(host->first.sizes(), x.transpose(0, 2).sizes());
  EXPECT_TRUE(at::equal(host->first.view(at::kShort), x.transpose(0, 2).contiguous().view(at::kShort)));
  EXPECT_TRUE(at::equal(host->second.view(at::kShort), y.view(at::kShort)));
  EXPECT_FALSE(small_pair_on_host(x.cuda(), y.cuda().to(at::kHalf)).has_value()) << "dtypes differ";
  EXPECT_FALSE(small_pair_on_host(x, y).has_value()) << "already on the host";
  const at::Tensor big = at::zeros({kHostCompareBytes / 4}, at::kCUDA);
  EXPECT_FALSE(small_pair_on_host(big, big).has_value()) << "over kHostCompareBytes";
  EXPECT_TRUE(small_pair_on_host(big.narrow(0, 0, kHostCompareBytes / 8), big.narrow(0, 0, kHostCompareBytes / 8)).has_value());
}

TEST(GpuDiff, Float64CpuReferenceAgainstACudaVariant) {
  SAMEBITS_REQUIRE_CUDA();
  const at::Tensor reference = at::tensor(std::vector<double>{0.1, 1.0});
  const at::Tensor variant = from_bits(at::kFloat, {0x3dcccccd, 0x3f800001}).cuda();
  const DiffStats d = compare_tensors(reference, variant, Comparison{});
  EXPECT_EQ(d.mismatched, 1);
  ASSERT_EQ(d.first_mismatches.size(), 1u);
  EXPECT_EQ(d.first_mismatches[0].index, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(d.first_mismatches[0].ulp, std::optional<std::uint64_t>(1));
}

// Plans `text` (one contract) on CUDA with the built-in ops and runs every case.
std::vector<CaseResult> run_builtin_on_cuda(const std::string& text) {
  const OpRegistry registry = OpRegistry::builtin();
  std::vector<std::unique_ptr<Contract>> contracts;
  contracts.push_back(std::make_unique<Contract>(parse_contract(text, "gpu/streams.json")));
  return run_contracts(contracts, registry, "cuda");
}

TEST(GpuDeterminism, SecondStreamRunsOnCuda) {
  SAMEBITS_REQUIRE_CUDA();
  const auto results = run_builtin_on_cuda(R"({"op": "sum", "implementations": ["aten"],
    "sweep": {"rows": [64], "N": [131, 4096]},
    "checks": [{"kind": "determinism", "sweep": {"repeat": ["second_stream"]},
                "expect": {"aten": "holds"}}]})");
  ASSERT_EQ(results.size(), 2u);
  for (const auto& r : results) {
    SCOPED_TRACE(r.id);
    EXPECT_EQ(r.verdict, Verdict::holds) << r.reason;
    EXPECT_EQ(r.variant, "second call on a second CUDA stream");
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_EQ(r.outputs[0].baseline_sha256, r.outputs[0].variant_sha256);
    EXPECT_EQ(r.outputs[0].diff.numel, 4 * r.params["N"].get<std::int64_t>())
        << "4 items of N sums";
  }
}

struct GpuControl {
  CheckKind kind;
  std::string impl;
  bool breaks;
};
void PrintTo(const GpuControl& c, std::ostream* os) {
  *os << to_string(c.kind) << "/" << c.impl;
}

std::vector<GpuControl> gpu_controls() {
  std::vector<GpuControl> out;
  for (const auto& v : control_violators()) {
    // The equivalence check compares with the invariant implementation, not the invariant itself.
    if (v.breaks != CheckKind::equivalence) out.push_back({v.breaks, kInvariantImpl, false});
    out.push_back({v.breaks, v.impl, true});
  }
  return out;
}

class GpuControlTest : public ::testing::TestWithParam<GpuControl> {};

// On CUDA, with the determinism check also repeating on a second stream.
TEST_P(GpuControlTest, VerdictMatchesTheFlaw) {
  SAMEBITS_REQUIRE_CUDA();
  const GpuControl& c = GetParam();
  const auto cases = run_control_cases(c.kind, c.impl, "cuda");
  ASSERT_FALSE(cases.empty());
  const auto groups = judge_checks(cases);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(to_string(groups[0].observed), c.breaks ? "violated" : "holds")
      << c.impl << " on " << to_string(c.kind);
  EXPECT_EQ(groups[0].outcome, Outcome::as_expected);
  EXPECT_EQ(groups[0].skipped, 0);
  EXPECT_EQ(groups[0].errors, 0);
  for (const auto& r : cases) {
    EXPECT_EQ(r.verdict, c.breaks ? Verdict::violated : Verdict::holds) << r.id << " " << r.reason;
  }
}

INSTANTIATE_TEST_SUITE_P(Gpu, GpuControlTest, ::testing::ValuesIn(gpu_controls()),
                         [](const ::testing::TestParamInfo<GpuControl>& info) {
                           return camel_case(to_string(info.param.kind)) +
                                  camel_case(info.param.impl);
                         });

}  // namespace
}  // namespace samebits
