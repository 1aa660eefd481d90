// samebits.linear on CUDA (label "gpu"; skipped without a GPU): every row keeps its bits for any
// M, position, stride and alignment; float32 gives the twin's bits, bf16 / f16 stay within bounds.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>

#include "harness/device_choice.h"
#include "kernels/linear/binding.h"
#include "tests/kernels/expect_error.h"
#include "tests/kernels/linear_bound_check.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace invariant_linear_gpu_test_file {}
using namespace invariant_linear_gpu_test_file;
namespace invariant_linear_gpu_test_file {

#define SAMEBITS_REQUIRE_CUDA() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU visible"

constexpr std::int64_t kLargestM = 8192;

struct GpuCase {
  std::int64_t n, k;
  at::ScalarType dtype;
  bool bias;
};
std::string case_name(const GpuCase& c) {
  const std::string d = c.dtype == at::kFloat ? "F32" : c.dtype == at::kHalf ? "F16" : "Bf16";
  return d + "N" + std::to_string(c.n) + "K" + std::to_string(c.k) + (c.bias ? "Bias" : "NoBias");
}

struct Inputs {
  at::Tensor x, w;  // on the GPU
  std::optional<at::Tensor> bias;
};
// x ~ N(0, 1) [8192, K], w ~ N(0, 1 / K), bias ~ N(0, 1), drawn on the GPU.
Inputs draw(const GpuCase& c, std::uint64_t seed) {
  at::manual_seed(seed);
  const auto on_gpu = at::TensorOptions().device(at::kCUDA);
  Inputs in;
  in.x = at::randn({kLargestM, c.k}, on_gpu).to(c.dtype);
  in.w = at::randn({c.n, c.k}, on_gpu).div(std::sqrt(static_cast<double>(c.k))).to(c.dtype);
  if (c.bias) in.bias = at::randn({c.n}, on_gpu).to(c.dtype);
  return in;
}

class LinearGpuTest : public ::testing::TestWithParam<GpuCase> {};

// Row i computed with M = 1, 7, 64, 65, 1000, 8192 rows around it, at the start or further in,
// strided, misaligned or column-major: the bits of the same row in the largest M.
TEST_P(LinearGpuTest, RowsKeepTheirBits) {
  SAMEBITS_REQUIRE_CUDA();
  const GpuCase& c = GetParam();
  const Inputs in = draw(c, 11);
  const at::Tensor all = invariant_linear(in.x, in.w, in.bias);
  ASSERT_TRUE(all.isfinite().all().item<bool>());
  for (std::int64_t m : {1, 7, 64, 65, 1000}) {
    for (std::int64_t start : {std::int64_t{0}, std::int64_t{4097}, kLargestM - m}) {
      const at::Tensor part = invariant_linear(in.x.narrow(0, start, m), in.w, in.bias);
      ASSERT_TRUE(
          same_bits(part, all.narrow(0, start, m),
                    ("M = " + std::to_string(m) + " from row " + std::to_string(start)).c_str()));
    }
  }
  at::Tensor wide = at::full({kLargestM, c.k + 1}, NAN, in.x.options());
  wide.narrow(1, 0, c.k).copy_(in.x);
  EXPECT_TRUE(
      same_bits(invariant_linear(wide.narrow(1, 0, c.k), in.w, in.bias), all, "row stride K + 1"));
  EXPECT_TRUE(same_bits(invariant_linear(wide.narrow(1, 0, c.k).narrow(0, 3, 65), in.w, in.bias),
                        all.narrow(0, 3, 65), "row stride K + 1, 65 rows from row 3"));
  at::Tensor storage = at::full({in.x.numel() + 1}, NAN, in.x.options());
  const at::Tensor shifted = storage.narrow(0, 1, in.x.numel()).view(in.x.sizes());
  shifted.copy_(in.x);
  EXPECT_TRUE(same_bits(invariant_linear(shifted, in.w, in.bias), all, "offset by one element"));
  const at::Tensor column_major = in.x.narrow(0, 0, 64).t().contiguous().t();
  EXPECT_TRUE(same_bits(invariant_linear(column_major, in.w, in.bias), all.narrow(0, 0, 64),
                        "column-major x"));
  // w itself misaligned (one-element offset) or strided: the binding stages it, same bits.
  at::Tensor w_storage = at::empty({in.w.numel() + 1}, in.w.options());
  const at::Tensor w_shifted = w_storage.narrow(0, 1, in.w.numel()).view(in.w.sizes());
  w_shifted.copy_(in.w);
  EXPECT_TRUE(same_bits(invariant_linear(in.x.narrow(0, 0, 65), w_shifted, in.bias),
                        all.narrow(0, 0, 65), "w offset by one element"));
  // matmul(a, b) is linear(a, b^T).
  EXPECT_TRUE(same_bits(invariant_matmul(in.x.narrow(0, 0, 7), in.w.t()).view({7, c.n}),
                        invariant_linear(in.x.narrow(0, 0, 7), in.w), "matmul"));
}

// float32: the twin's bits; bf16 / f16: within the GPU's bound plus the twin's of the twin, and
// within the GPU's bound of float64. Rows 0..15 and the last 16 of the largest M.
TEST_P(LinearGpuTest, AgreesWithTwinAndFloat64) {
  SAMEBITS_REQUIRE_CUDA();
  const GpuCase& c = GetParam();
  const Inputs in = draw(c, 12);
  const at::Tensor all = invariant_linear(in.x, in.w, in.bias);
  const kernels::DType dtype = linear_dtype(c.dtype);
  const at::Tensor w = in.w.cpu();
  const std::optional<at::Tensor> bias =
      in.bias ? std::optional<at::Tensor>(in.bias->cpu()) : std::nullopt;
  for (std::int64_t start : {std::int64_t{0}, kLargestM - 16}) {
    const at::Tensor x = in.x.narrow(0, start, 16).cpu();
    const at::Tensor gpu = all.narrow(0, start, 16).cpu();
    const at::Tensor twin = invariant_linear(x, w, bias);
    const LinearReference r = linear_reference(x, w, bias);
    const at::Tensor gpu_bound =
        linear_bounds(r, linear_bound::dot_arithmetic(dtype, false), dtype, c.k, c.bias);
    const at::Tensor twin_bound =
        linear_bounds(r, linear_bound::dot_arithmetic(dtype, true), dtype, c.k, c.bias);
    if (dtype == kernels::DType::f32) {
      EXPECT_TRUE(same_bits(gpu, twin, "GPU vs twin (float32)"));
    } else {
      double worst = 0.0;
      EXPECT_TRUE(within_bound(gpu, twin, gpu_bound + twin_bound, "GPU vs twin", &worst));
      RecordProperty("worst_gpu_vs_twin_over_bound", std::to_string(worst));
    }
    double worst = 0.0;
    EXPECT_TRUE(within_bound(gpu, r.value, gpu_bound, "GPU vs float64", &worst));
    RecordProperty("worst_gpu_vs_float64_over_bound", std::to_string(worst));
    // The negative control: one output three of its bounds away fails the same check.
    at::Tensor wrong = gpu.clone();
    wrong[5][c.n - 1] =
        r.value[5][c.n - 1].item<double>() + 3 * gpu_bound[5][c.n - 1].item<double>();
    EXPECT_FALSE(within_bound(wrong, r.value, gpu_bound, "perturbed"));
  }
}

std::vector<GpuCase> gpu_cases() {
  std::vector<GpuCase> out;
  for (at::ScalarType dtype : {at::kBFloat16, at::kHalf, at::kFloat}) {
    for (const auto& [n, k] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {1024, 2816}, {4096, 4096}, {1000, 1000}, {200, 33}, {77, 4097}, {130, 17}}) {
      for (bool bias : {true, false}) out.push_back({n, k, dtype, bias});
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Grid, LinearGpuTest, ::testing::ValuesIn(gpu_cases()),
                         [](const auto& info) { return case_name(info.param); });

// A split-K result for the same rows (what an M-dependent GEMM does) is caught bit for bit.
TEST(LinearGpuControls, SplitKIsCaught) {
  SAMEBITS_REQUIRE_CUDA();
  for (at::ScalarType dtype : {at::kFloat, at::kBFloat16}) {
    const Inputs in = draw({256, 2048, dtype, false}, 13);
    const at::Tensor x = in.x.narrow(0, 0, 64);
    const at::Tensor one = invariant_linear(x, in.w);
    const at::Tensor split =
        (invariant_linear(x.narrow(1, 0, 1024), in.w.narrow(1, 0, 1024)).to(at::kFloat) +
         invariant_linear(x.narrow(1, 1024, 1024), in.w.narrow(1, 1024, 1024)).to(at::kFloat))
            .to(dtype);
    EXPECT_FALSE(same_bits(split, one, "split-K")) << dtype;
  }
}

TEST(LinearGpuEdges, EmptyAndBadInput) {
  SAMEBITS_REQUIRE_CUDA();
  const auto on_gpu = at::TensorOptions().device(at::kCUDA).dtype(at::kBFloat16);
  const at::Tensor w = at::randn({6, 40}, on_gpu), bias = at::randn({6}, on_gpu);
  EXPECT_EQ(invariant_linear(at::empty({0, 40}, on_gpu), w, bias).sizes(),
            (std::vector<std::int64_t>{0, 6}));
  EXPECT_EQ(invariant_matmul(at::empty({2, 0, 40}, on_gpu), w.t()).sizes(),
            (std::vector<std::int64_t>{2, 0, 6}));
  expect_error(
      [&] {
        invariant_linear(at::randn({3, 40}, on_gpu), w.cpu());
      },
      "w must be on x's device");
  expect_error(
      [&] {
        invariant_linear(at::randn({3, 40}, on_gpu), w, bias.cpu());
      },
      "bias must be on x's device");
}

}  // namespace invariant_linear_gpu_test_file
}  // namespace samebits
