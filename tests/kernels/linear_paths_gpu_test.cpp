// The bf16 / f16 linear's kernels against each other on CUDA (label "gpu"): the wgmma + TMA decode
// and prefill kernels (both tile widths) give the mma.sync kernel's bits for every shape and tail.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAStream.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "harness/device_choice.h"
#include "kernels/linear/linear_kernels.h"
#include "tests/kernels/bit_compare.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace linear_paths_gpu_test_file {}
using namespace linear_paths_gpu_test_file;
namespace linear_paths_gpu_test_file {

using kernels::LinearPath;

struct PathCase {
  std::int64_t m, n, k;
  at::ScalarType dtype;
  bool bias;
};
std::string case_name(const PathCase& c) {
  return std::string(c.dtype == at::kHalf ? "F16" : "Bf16") + "M" + std::to_string(c.m) + "N" +
         std::to_string(c.n) + "K" + std::to_string(c.k) + (c.bias ? "Bias" : "NoBias");
}

// y = x w^T (+ bias) through `path`, x and w with row strides of their own (a multiple of 8).
at::Tensor run_path(const at::Tensor& x, const at::Tensor& w, const at::Tensor* bias,
                    LinearPath path) {
  at::Tensor out = at::full({x.size(0), w.size(0)}, NAN, x.options());
  kernels::LinearProblem p;
  p.dtype = x.scalar_type() == at::kHalf ? kernels::DType::f16 : kernels::DType::bf16;
  p.rows = x.size(0);
  p.n = w.size(0);
  p.k = x.size(1);
  p.x = x.data_ptr();
  p.x_row_stride = x.stride(0);
  p.w = w.data_ptr();
  p.w_row_stride = w.stride(0);
  p.bias = bias ? bias->data_ptr() : nullptr;
  p.out = out.data_ptr();
  const kernels::Status s =
      kernels::invariant_linear_cuda_path(p, path, c10::cuda::getCurrentCUDAStream());
  EXPECT_EQ(s, kernels::Status::ok) << kernels::to_string(s);
  return out;
}

// x ~ N(0, 1), w ~ N(0, 1 / K) with their rows padded to a stride of K rounded up to 8, plus 8
// (the padding NaN: a kernel reading past K would show it).
at::Tensor padded(const at::Tensor& values) {
  const std::int64_t k = values.size(1), stride = (k + 7) / 8 * 8 + 8;
  at::Tensor storage = at::full({values.size(0), stride}, NAN, values.options());
  storage.narrow(1, 0, k).copy_(values);
  return storage.narrow(1, 0, k);
}

class LinearPathsTest : public ::testing::TestWithParam<PathCase> {};

TEST_P(LinearPathsTest, EveryKernelGivesTheMmaSyncBits) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU visible";
  const PathCase& c = GetParam();
  at::manual_seed(21);
  const auto on_gpu = at::TensorOptions().device(at::kCUDA);
  const at::Tensor x = padded(at::randn({c.m, c.k}, on_gpu).to(c.dtype));
  const at::Tensor w =
      padded(at::randn({c.n, c.k}, on_gpu).div(std::sqrt(static_cast<double>(c.k))).to(c.dtype));
  const at::Tensor bias = at::randn({c.n}, on_gpu).to(c.dtype);
  const at::Tensor* b = c.bias ? &bias : nullptr;
  const at::Tensor want = run_path(x, w, b, LinearPath::mma_sync);
  ASSERT_TRUE(want.isfinite().all().item<bool>());
  EXPECT_TRUE(same_bits(want, run_path(x, w, b, LinearPath::prefill))) << "prefill";
  EXPECT_TRUE(same_bits(want, run_path(x, w, b, LinearPath::prefill_narrow))) << "narrow";
  EXPECT_TRUE(same_bits(want, run_path(x, w, b, LinearPath::automatic))) << "automatic";
  if (c.m <= 64) {
    EXPECT_TRUE(same_bits(want, run_path(x, w, b, LinearPath::decode))) << "decode";
  }
}

std::vector<PathCase> path_cases() {
  std::vector<PathCase> out;
  // Rows around the decode kernels' 16 and 64 and the prefill tile's 128; columns around the
  // decode block's 64 and the prefill tile's 256 (odd ones: unpaired stores); K around the
  // 16-wide step and the 64-wide stage.
  for (at::ScalarType dtype : {at::kBFloat16, at::kHalf}) {
    for (std::int64_t m : {1, 5, 16, 17, 64, 65, 130, 1000}) {
      for (const auto& [n, k] : std::vector<std::pair<std::int64_t, std::int64_t>>{
               {1, 8}, {77, 17}, {256, 64}, {300, 100}, {513, 1000}, {1024, 2816}}) {
        out.push_back({m, n, k, dtype, (m + n) % 2 == 0});
      }
    }
  }
  out.push_back({4096, 4096, 4096, at::kBFloat16, false});
  out.push_back({33, 14336, 4096, at::kBFloat16, true});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Grid, LinearPathsTest, ::testing::ValuesIn(path_cases()),
                         [](const auto& info) { return case_name(info.param); });

// The decode kernels take at most 64 rows; asked for more they refuse instead of dropping rows.
TEST(LinearPathsEdges, DecodeRefusesMoreThan64Rows) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU visible";
  const auto on_gpu = at::TensorOptions().device(at::kCUDA).dtype(at::kBFloat16);
  const at::Tensor x = at::randn({65, 32}, on_gpu), w = at::randn({8, 32}, on_gpu);
  at::Tensor out = at::empty({65, 8}, on_gpu);
  kernels::LinearProblem p;
  p.dtype = kernels::DType::bf16;
  p.rows = 65;
  p.n = 8;
  p.k = 32;
  p.x = x.data_ptr();
  p.x_row_stride = 32;
  p.w = w.data_ptr();
  p.w_row_stride = 32;
  p.out = out.data_ptr();
  EXPECT_EQ(
      kernels::invariant_linear_cuda_path(p, LinearPath::decode, c10::cuda::getCurrentCUDAStream()),
      kernels::Status::invalid_argument);
}

}  // namespace linear_paths_gpu_test_file
}  // namespace samebits
