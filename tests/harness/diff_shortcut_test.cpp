// compare_tensors' shortcut for identical outputs against its general path, field by field, over
// every dtype family, comparison mode and the values that make the general path branch (infinities,
// NaNs, -0, integers, bools): the shortcut may only ever be faster, never say something else.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "harness/diff.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace diff_shortcut_test_file {}
using namespace diff_shortcut_test_file;
namespace diff_shortcut_test_file {

struct ShortcutCase {
  std::string name;
  at::ScalarType dtype;
  std::string values;  // normal, specials (inf, -0), nan
  Comparison how;
};
void PrintTo(const ShortcutCase& c, std::ostream* os) {
  *os << c.name;
}

Comparison mode(CompareMode m, bool equal_nan = false) {
  Comparison c;
  c.mode = m;
  c.equal_nan = equal_nan;
  if (m == CompareMode::ulp) c.max_ulp = 2;
  return c;
}

at::Tensor values_of(const ShortcutCase& c) {
  at::Tensor t = at::randn({3, 37}, at::TensorOptions().dtype(at::kDouble)
                                        .device(at::kCPU))
                     .mul_(c10::elementSize(c.dtype) == 1 ? 10 : 100);  // e4m3 tops out at 448
  if (c.values == "specials") {
    t[0][1] = std::numeric_limits<double>::infinity();
    t[1][2] = -std::numeric_limits<double>::infinity();
    t[2][3] = -0.0;
  }
  if (c.values == "nan") t[1][5] = std::numeric_limits<double>::quiet_NaN();
  if (c.dtype == at::kBool) return t.gt(0);
  return t.to(c.dtype);
}

void expect_same(const DiffStats& a, const DiffStats& b) {
  EXPECT_EQ(a.mode, b.mode);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.numel, b.numel);
  EXPECT_EQ(a.mismatched, b.mismatched);
  EXPECT_EQ(a.mismatch_fraction, b.mismatch_fraction);
  EXPECT_EQ(a.within, b.within);
  EXPECT_EQ(a.max_abs_error, b.max_abs_error);
  EXPECT_EQ(a.max_rel_error, b.max_rel_error);
  EXPECT_EQ(a.max_ulp, b.max_ulp);
  EXPECT_EQ(a.ulp_histogram, b.ulp_histogram);
  EXPECT_EQ(a.nonfinite_mismatches, b.nonfinite_mismatches);
  EXPECT_EQ(a.first_mismatches.size(), b.first_mismatches.size());
  EXPECT_EQ(a.tolerance, b.tolerance);
}

class Shortcut : public ::testing::TestWithParam<ShortcutCase> {};

// The same tensor twice (a copy, so no storage is shared): the shortcut's stats are the general
// path's.
TEST_P(Shortcut, IdenticalOutputsGiveTheGeneralPathsStats) {
  at::manual_seed(7);
  const at::Tensor a = values_of(GetParam());
  const at::Tensor b = a.clone();
  expect_same(compare_tensors(a, b, GetParam().how), compare_tensors_general(a, b, GetParam().how));
}

// Control: one element's lowest bit flipped differs in both, and both say so the same way.
TEST_P(Shortcut, OneFlippedBitTakesTheGeneralPath) {
  if (GetParam().dtype == at::kBool) GTEST_SKIP() << "no bit below the value";
  at::manual_seed(7);
  const at::Tensor a = values_of(GetParam());
  at::Tensor b = a.clone();
  const auto bytes = static_cast<std::uint8_t*>(b.data_ptr());
  bytes[0] ^= 1;  // element [0][0], little-endian: its lowest mantissa (or value) bit
  const DiffStats fast = compare_tensors(a, b, GetParam().how);
  expect_same(fast, compare_tensors_general(a, b, GetParam().how));
  EXPECT_GT(fast.max_abs_error, 0) << "the flipped element's difference is seen";
}

std::vector<ShortcutCase> cases() {
  std::vector<ShortcutCase> out;
  const std::pair<const char*, at::ScalarType> dtypes[] = {
      {"f32", at::kFloat}, {"f64", at::kDouble}, {"bf16", at::kBFloat16}, {"f16", at::kHalf},
      {"e4m3", at::kFloat8_e4m3fn}, {"i64", at::kLong}, {"i32", at::kInt}, {"bool", at::kBool}};
  const std::pair<const char*, Comparison> modes[] = {
      {"bitwise", mode(CompareMode::bitwise)},   {"indices", mode(CompareMode::indices)},
      {"ulp", mode(CompareMode::ulp)},           {"allclose", mode(CompareMode::allclose)},
      {"ulpEqualNan", mode(CompareMode::ulp, true)},
      {"allcloseEqualNan", mode(CompareMode::allclose, true)}};
  for (const auto& [dname, dtype] : dtypes) {
    const bool floating = at::isFloatingType(dtype);
    for (const char* values : {"normal", "specials", "nan"}) {
      if (!floating && std::string(values) != "normal") continue;
      for (const auto& [mname, how] : modes) {
        out.push_back({std::string(dname) + "_" + values + "_" + mname, dtype, values, how});
      }
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Diff, Shortcut, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace diff_shortcut_test_file
}  // namespace samebits
