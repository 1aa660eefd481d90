// The invariant softmax on CUDA (label "gpu"; skipped without a GPU): the kernel gives the CPU
// twin's bits for every length, dtype and output dtype, for aligned, unaligned, strided and
// padded rows and special values, a row alone as in a batch, on the warp-per-row path (rows of up
// to 1024) and the block paths alike; exp and log equal the twin's bitwise, and the max and the
// 16-bit rounding the kernels take from the hardware equal the order header's.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <vector>

#include "harness/device_choice.h"
#include "kernels/softmax/binding.h"
#include "kernels/softmax/invariant_softmax.h"
#include "kernels/softmax/invariant_softmax_order.h"
#include "tests/kernels/bit_compare.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace invariant_softmax_gpu_test_file {}
using namespace invariant_softmax_gpu_test_file;
namespace invariant_softmax_gpu_test_file {

#define SAMEBITS_REQUIRE_CUDA() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU visible"

struct GpuCase {
  std::int64_t length;
  at::ScalarType dtype;
  bool log;
  bool float_out;
};
void PrintTo(const GpuCase& c, std::ostream* os) {
  *os << (c.log ? "log_softmax" : "softmax") << "_" << c.length << "_" << c.dtype
      << (c.float_out ? "_to_float32" : "");
}

// Logits with masked (-inf) tokens, a few huge gaps (exp to 0 and to subnormals), in dtype.
at::Tensor logits(std::int64_t rows, std::int64_t length, at::ScalarType dtype,
                  std::uint64_t seed) {
  at::Generator gen = at::detail::createCPUGenerator(seed);
  at::Tensor x = at::randn({rows, length}, gen).mul(4.0);
  if (length > 4) {
    x.view({-1}).index_put_({at::arange(3, x.numel(), 17)}, -INFINITY);
    x.view({-1}).index_put_({at::arange(5, x.numel(), 23)}, -95.0);
  }
  return x.to(dtype);
}

at::Tensor run(const GpuCase& c, const at::Tensor& x) {
  return invariant_softmax(x, c.float_out ? std::optional(at::kFloat) : std::nullopt, c.log).cpu();
}

// Few rows of a long length (the decode case), many of a short one (several rows per block, and
// more blocks than one wave).
std::int64_t rows_for(std::int64_t n) {
  return n >= 100000 ? 3 : n >= 10000 ? 16 : n > 1024 ? 64 : 1000;
}

class SoftmaxCudaTest : public ::testing::TestWithParam<GpuCase> {};

TEST_P(SoftmaxCudaTest, MatchesTheTwinInEveryLayout) {
  SAMEBITS_REQUIRE_CUDA();
  const GpuCase& c = GetParam();
  const std::int64_t rows = rows_for(c.length), n = c.length;
  const at::Tensor x = logits(rows, n, c.dtype, 7 + static_cast<std::uint64_t>(n));
  const at::Tensor twin = run(c, x);
  const at::Tensor xc = x.cuda();
  EXPECT_TRUE(same_bits(twin, run(c, xc))) << "contiguous";
  for (std::int64_t r : {std::int64_t{0}, rows - 1}) {
    EXPECT_TRUE(same_bits(twin[r], run(c, xc[r].clone()))) << "row " << r << " alone";
  }
  for (std::int64_t offset : {1, 2, 3}) {  // every 16-byte phase of float32 and 8-byte of 16-bit
    at::Tensor storage = at::full({rows * n + offset}, NAN, xc.options());
    const at::Tensor shifted = storage.narrow(0, offset, rows * n).view({rows, n});
    shifted.copy_(xc);
    EXPECT_TRUE(same_bits(twin, run(c, shifted))) << "storage offset " << offset;
  }
  at::Tensor wide = at::full({rows, n + 5}, NAN, xc.options());
  wide.narrow(1, 0, n).copy_(xc);
  EXPECT_TRUE(same_bits(twin, run(c, wide.narrow(1, 0, n)))) << "row stride n + 5";
  const at::Tensor padded = at::cat({xc, at::full({rows, 64}, -INFINITY, xc.options())}, 1);
  EXPECT_TRUE(same_bits(twin, run(c, padded).narrow(1, 0, n).contiguous())) << "-inf padding";
}

INSTANTIATE_TEST_SUITE_P(Gpu, SoftmaxCudaTest, ::testing::ValuesIn([] {
                           std::vector<GpuCase> cases;
                           // Every path and both sides of each threshold: a warp per row up
                           // to 1024, a block of 128 / 256 / 512 / 1024 threads up to 2048 /
                           // 4096 / 8192 / 32768, a cluster beyond, 1024 threads past the shared
                           // memory.
                           for (std::int64_t n :
                                {1,     3,     100,   129,   300,    513,    1000,  1024,
                                 1025,  2048,  2049,  4096,  4097,   8192,   8193,  12289,
                                 32000, 32768, 32769, 40003, 128256, 256000, 500000}) {
                             for (at::ScalarType t : {at::kFloat, at::kBFloat16, at::kHalf}) {
                               for (bool log : {false, true}) {
                                 cases.push_back({n, t, log, false});
                                 if (t != at::kFloat) cases.push_back({n, t, log, true});
                               }
                             }
                           }
                           return cases;
                         }()),
                         [](const auto& info) {
                           std::ostringstream os;
                           PrintTo(info.param, &os);
                           return os.str();
                         });

TEST(SoftmaxCudaEdgeTest, SpecialRowsMatchTheTwin) {
  SAMEBITS_REQUIRE_CUDA();
  const float inf = std::numeric_limits<float>::infinity();
  const at::Tensor x = at::tensor({1.0f, 2.0f, NAN,  0.5f, 1.0f, inf,   0.0f, 0.0f, -inf, -inf,
                                   -inf, -inf, -inf, 0.0f, -inf, -0.0f, 2.5f, 2.5f, 2.5f, 2.5f})
                           .view({5, 4});
  for (bool log : {false, true}) {
    EXPECT_TRUE(same_bits(invariant_softmax(x, std::nullopt, log),
                          invariant_softmax(x.cuda(), std::nullopt, log).cpu()))
        << (log ? "log_softmax" : "softmax");
  }
}

// Enough short rows that warps loop over several, each loading the next while computing this one
// (16-bit rows whose quads are all whole), and rows with no element below -86 (the voted path).
TEST(SoftmaxCudaEdgeTest, ManyShortRowsMatchTheTwin) {
  SAMEBITS_REQUIRE_CUDA();
  for (std::int64_t n : {128, 512, 1000, 1024}) {
    for (at::ScalarType t : {at::kBFloat16, at::kHalf, at::kFloat}) {
      at::Generator gen = at::detail::createCPUGenerator(static_cast<std::uint64_t>(n));
      const at::Tensor x = at::randn({20000, n}, gen).mul(4.0).to(t);
      for (bool log : {false, true}) {
        EXPECT_TRUE(same_bits(invariant_softmax(x, std::nullopt, log),
                              invariant_softmax(x.cuda(), std::nullopt, log).cpu()))
            << (log ? "log_softmax " : "softmax ") << n << " " << t;
      }
    }
  }
}

// The kernels' max is fmaxf: max_combine's value (NaN ignored, +0 above -0) on every pair of
// special values, both ways round.
TEST(SoftmaxCudaEdgeTest, MaxIsMaxCombine) {
  SAMEBITS_REQUIRE_CUDA();
  const std::vector<std::uint32_t> special{0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,
                                           0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x3f800000u,
                                           0xbf800000u, 0x00000001u, 0x80000001u, 0x7f7fffffu};
  std::vector<float> a, b;
  for (std::uint32_t p : special) {
    for (std::uint32_t q : special) {
      a.push_back(kernels::softmax_order::from_bits(p));
      b.push_back(kernels::softmax_order::from_bits(q));
    }
  }
  const auto n = static_cast<std::int64_t>(a.size());
  const at::Tensor ac = at::from_blob(a.data(), {n}, at::kFloat).cuda();
  const at::Tensor bc = at::from_blob(b.data(), {n}, at::kFloat).cuda();
  at::Tensor out = at::empty_like(ac);
  ASSERT_EQ(kernels::softmax_max_pairs_cuda(ac.const_data_ptr<float>(), bc.const_data_ptr<float>(),
                                            out.mutable_data_ptr<float>(), n,
                                            at::cuda::getCurrentCUDAStream()),
            kernels::Status::ok);
  const at::Tensor got = out.cpu();
  for (std::int64_t i = 0; i < n; ++i) {
    namespace so = kernels::softmax_order;
    // max_combine starts from a non-NaN accumulator: a NaN first operand is the identity.
    const float want = so::is_nan(a[i]) ? b[i] : so::max_combine(a[i], b[i]);
    const float g = got.const_data_ptr<float>()[i];
    const bool ok = so::is_nan(want) ? so::is_nan(g) : so::to_bits(want) == so::to_bits(g);
    EXPECT_TRUE(ok) << std::hex << "max(0x" << so::to_bits(a[i]) << ", 0x" << so::to_bits(b[i])
                    << "): gpu 0x" << so::to_bits(g) << ", max_combine 0x" << so::to_bits(want);
  }
}

// The hardware's round-to-nearest-even to bfloat16 and float16 is the order header's, for all
// 2^32 non-NaN float32 patterns (NaN rows are written apart).
TEST(SoftmaxCudaEdgeTest, HardwareRoundingMatchesTheOrder) {
  SAMEBITS_REQUIRE_CUDA();
  at::Tensor counts = at::zeros({2}, at::device(at::kCUDA).dtype(at::kLong));
  at::Tensor first = at::full({2}, -1, at::device(at::kCUDA).dtype(at::kInt));
  ASSERT_EQ(kernels::softmax_rounding_mismatches_cuda(
                reinterpret_cast<unsigned long long*>(counts.mutable_data_ptr<std::int64_t>()),
                reinterpret_cast<unsigned*>(first.mutable_data_ptr<std::int32_t>()),
                at::cuda::getCurrentCUDAStream()),
            kernels::Status::ok);
  const at::Tensor c = counts.cpu(), f = first.cpu();
  EXPECT_EQ(c[0].item<std::int64_t>(), 0)
      << "bfloat16, first at 0x" << std::hex << static_cast<std::uint32_t>(f[0].item<int>());
  EXPECT_EQ(c[1].item<std::int64_t>(), 0)
      << "float16, first at 0x" << std::hex << static_cast<std::uint32_t>(f[1].item<int>());
}

// exp_invariant and log_invariant on the GPU against the twin's, over every 61st float32.
TEST(SoftmaxCudaEdgeTest, ExpAndLogMatchTheTwinBitwise) {
  SAMEBITS_REQUIRE_CUDA();
  const at::Tensor bits = at::arange(0, std::int64_t{1} << 32, 61, at::kLong);
  const at::Tensor x = bits.to(at::kInt).view(at::kFloat);
  const at::Tensor xc = x.cuda();
  at::Tensor e = at::empty_like(xc), l = at::empty_like(xc);
  ASSERT_EQ(kernels::softmax_exp_log_cuda(xc.const_data_ptr<float>(), e.mutable_data_ptr<float>(),
                                          l.mutable_data_ptr<float>(), xc.numel(),
                                          at::cuda::getCurrentCUDAStream()),
            kernels::Status::ok);
  const at::Tensor ec = e.cpu(), lc = l.cpu();
  const auto* xs = x.const_data_ptr<float>();
  const auto* es = ec.const_data_ptr<float>();
  const auto* ls = lc.const_data_ptr<float>();
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    const float we = kernels::softmax_exp_cpu(xs[i]), wl = kernels::softmax_log_cpu(xs[i]);
    // NaN results may carry other payloads on the two sides; the kernels canonicalise outputs.
    const bool e_ok = std::isnan(we) ? std::isnan(es[i]) : std::memcmp(&we, &es[i], 4) == 0;
    const bool l_ok = std::isnan(wl) ? std::isnan(ls[i]) : std::memcmp(&wl, &ls[i], 4) == 0;
    if ((!e_ok || !l_ok) && bad++ < 5) {
      ADD_FAILURE() << "x = " << xs[i] << ": exp twin " << we << " gpu " << es[i] << ", log twin "
                    << wl << " gpu " << ls[i];
    }
  }
  EXPECT_EQ(bad, 0);
}

}  // namespace invariant_softmax_gpu_test_file
// Long rows, more of them than the 512-thread cluster holds at once on an H100 (49), so that they
// take the 256-thread cluster (two partials a thread), and row 0 alone, which takes the 512-thread
// one: the twin's bits either way.
TEST(SoftmaxCudaEdgeTest, ManyLongRowsMatchTheTwin) {
  SAMEBITS_REQUIRE_CUDA();
  for (std::int64_t n : {40003, 128256}) {
    for (at::ScalarType t : {at::kBFloat16, at::kFloat}) {
      const at::Tensor x = logits(200, n, t, static_cast<std::uint64_t>(n));
      const at::Tensor xc = x.cuda();
      for (bool log : {false, true}) {
        const at::Tensor twin = invariant_softmax(x, std::nullopt, log);
        EXPECT_TRUE(same_bits(twin, invariant_softmax(xc, std::nullopt, log).cpu()))
            << (log ? "log_softmax " : "softmax ") << n << " " << t;
        EXPECT_TRUE(same_bits(twin[0], invariant_softmax(xc[0].clone(), std::nullopt, log).cpu()))
            << "row 0 alone, " << (log ? "log_softmax " : "softmax ") << n << " " << t;
      }
    }
  }
}

}  // namespace samebits
