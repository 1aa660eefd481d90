// samebits.rms_norm and add_rms_norm on CUDA: the twin's bits for every dtype and a grid of D,
// the same bits for a row alone, in any batch, strided or misaligned, and clear errors.
#include <ATen/cuda/CUDAContext.h>
#include <gtest/gtest.h>

#include "kernels/norm/binding.h"
#include "tests/kernels/bit_compare.h"
#include "tests/kernels/expect_error.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace invariant_norm_gpu_test_file {}
using namespace invariant_norm_gpu_test_file;
namespace invariant_norm_gpu_test_file {

struct NormGpuCase {
  at::ScalarType dtype;
  std::int64_t d;
};

std::string gpu_case_name(const ::testing::TestParamInfo<NormGpuCase>& info) {
  const auto& c = info.param;
  const char* t = c.dtype == at::kFloat ? "F32" : c.dtype == at::kBFloat16 ? "Bf16" : "F16";
  return std::string(t) + "D" + std::to_string(c.d);
}

at::Tensor draw(std::vector<std::int64_t> shape, at::ScalarType dtype, std::uint64_t seed) {
  at::Generator gen = at::detail::createCPUGenerator(seed);
  return at::randn(shape, gen).mul_(3.0).to(dtype);
}

class NormGpuTest : public ::testing::TestWithParam<NormGpuCase> {
 protected:
  void SetUp() override {
    if (!at::hasCUDA()) GTEST_SKIP() << "no CUDA GPU";
  }
};

TEST_P(NormGpuTest, GivesTheTwinsBits) {
  const auto [dtype, d] = GetParam();
  const at::Tensor x = draw({33, d}, dtype, 1), r = draw({33, d}, dtype, 2);
  const at::Tensor w = draw({d}, dtype, 3);
  EXPECT_TRUE(
      same_bits(invariant_rms_norm(x, w, 1e-6), invariant_rms_norm(x.cuda(), w.cuda(), 1e-6)));
  const auto [y_cpu, h_cpu] = invariant_add_rms_norm(x, r, w, 1e-5);
  const auto [y_gpu, h_gpu] = invariant_add_rms_norm(x.cuda(), r.cuda(), w.cuda(), 1e-5);
  EXPECT_TRUE(same_bits(h_cpu, h_gpu)) << "h";
  EXPECT_TRUE(same_bits(y_cpu, y_gpu)) << "y";
}

// Rows alone vs inside 1000 rows (at 0, 517, 999), with a row stride of D + 5, and one element
// off 16-byte alignment: the same bits.
TEST_P(NormGpuTest, ARowKeepsItsBits) {
  const auto [dtype, d] = GetParam();
  const at::Tensor batch = draw({1000, d}, dtype, 4).cuda(), w = draw({d}, dtype, 5).cuda();
  const at::Tensor all = invariant_rms_norm(batch, w, 1e-6);
  const at::Tensor wide = at::zeros({1000, d + 5}, batch.options());
  wide.narrow(1, 0, d).copy_(batch);
  const at::Tensor strided = invariant_rms_norm(wide.narrow(1, 0, d), w, 1e-6);
  const at::Tensor flat = at::zeros({1000 * d + 1}, batch.options());
  flat.narrow(0, 1, 1000 * d).copy_(batch.view({-1}));
  const at::Tensor shifted =
      invariant_rms_norm(flat.narrow(0, 1, 1000 * d).view({1000, d}), w, 1e-6);
  EXPECT_TRUE(same_bits(all, strided)) << "strided";
  EXPECT_TRUE(same_bits(all, shifted)) << "misaligned";
  // The fused form too: y and h of a row alone are its bits inside the batch.
  const at::Tensor res = draw({1000, d}, dtype, 6).cuda();
  const auto [y_all, h_all] = invariant_add_rms_norm(batch, res, w, 1e-6);
  for (const std::int64_t row : {0, 517, 999}) {
    EXPECT_TRUE(same_bits(invariant_rms_norm(batch[row], w, 1e-6), all[row])) << "row " << row;
    EXPECT_TRUE(same_bits(invariant_rms_norm(batch.narrow(0, row, 1), w, 1e-6)[0], all[row]));
    const auto [y, h] = invariant_add_rms_norm(batch[row], res[row], w, 1e-6);
    EXPECT_TRUE(same_bits(y, y_all[row])) << "add form y, row " << row;
    EXPECT_TRUE(same_bits(h, h_all[row])) << "add form h, row " << row;
  }
}

// Every path of the kernel and both sides of each threshold (by chunks of 8: a warp per row up
// to D = 1024, 64 / 128 / 256 threads per row up to 2048 / 4096 / 8192, the streaming kernel
// beyond), with the last chunk full and partial.
INSTANTIATE_TEST_SUITE_P(
    Grid, NormGpuTest,
    ::testing::Values(NormGpuCase{at::kFloat, 1}, NormGpuCase{at::kFloat, 7},
                      NormGpuCase{at::kFloat, 1025}, NormGpuCase{at::kFloat, 2048},
                      NormGpuCase{at::kFloat, 4095}, NormGpuCase{at::kFloat, 4097},
                      NormGpuCase{at::kFloat, 8192}, NormGpuCase{at::kFloat, 8193},
                      NormGpuCase{at::kBFloat16, 1}, NormGpuCase{at::kBFloat16, 1024},
                      NormGpuCase{at::kBFloat16, 1031}, NormGpuCase{at::kBFloat16, 2049},
                      NormGpuCase{at::kBFloat16, 4095}, NormGpuCase{at::kBFloat16, 4096},
                      NormGpuCase{at::kBFloat16, 8200}, NormGpuCase{at::kBFloat16, 65536},
                      NormGpuCase{at::kHalf, 7}, NormGpuCase{at::kHalf, 1020},
                      NormGpuCase{at::kHalf, 2056}, NormGpuCase{at::kHalf, 8192}),
    gpu_case_name);

TEST(NormGpuEdges, EmptyNaNAndBadInput) {
  if (!at::hasCUDA()) GTEST_SKIP() << "no CUDA GPU";
  const auto cuda = at::TensorOptions().device(at::kCUDA);
  EXPECT_EQ(invariant_rms_norm(at::ones({0, 8}, cuda), at::ones({8}, cuda), 1e-6).numel(), 0);
  at::Tensor x = at::ones({2, 16}, cuda.dtype(at::kHalf));
  x[1][5] = std::nanf("");
  const at::Tensor y = invariant_rms_norm(x, at::ones({16}, cuda.dtype(at::kHalf)), 1e-6);
  EXPECT_TRUE(same_bits(invariant_rms_norm(x.cpu(), at::ones({16}, at::kHalf), 1e-6), y));
  expect_error(
      [&] {
        invariant_rms_norm(at::ones({2, 8}, cuda), at::ones({8}), 1e-6);
      },
      "w must be on x's device");
  expect_error(
      [&] {
        invariant_add_rms_norm(at::ones({2, 8}, cuda), at::ones({2, 8}), at::ones({8}, cuda), 1e-6);
      },
      "residual must be on x's device");
  // A kernel launch with bad arguments is an error, and the next call works.
  EXPECT_TRUE(at::isfinite(invariant_rms_norm(at::ones({3, 8}, cuda), at::ones({8}, cuda), 0))
                  .all()
                  .item<bool>());
}

}  // namespace invariant_norm_gpu_test_file
}  // namespace samebits
