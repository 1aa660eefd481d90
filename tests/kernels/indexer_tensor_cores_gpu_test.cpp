// The tensor_cores indexer on CUDA (label "gpu"; skipped without a GPU): scores within the
// documented bound of float64, top-k equal to the twin's wherever the bound separates the scores.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "harness/device_choice.h"
#include "kernels/indexer/binding.h"
#include "tests/kernels/indexer_bound_check.h"
#include "tests/kernels/indexer_inputs.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace indexer_tensor_cores_gpu_test_file {}
using namespace indexer_tensor_cores_gpu_test_file;
namespace indexer_tensor_cores_gpu_test_file {

#define SAMEBITS_REQUIRE_CUDA() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU visible"

using indexer_bound::DotArithmetic;
using kernels::IndexerAlgorithm;

// Keys times 2^e, e uniform in [-spread, spread] per element: products of very different sizes
// meet in one MMA step, where alignment truncates (bf16 keeps float32's exponent range).
IndexerBatch spread_keys(IndexerBatch b, int spread, std::uint64_t seed) {
  if (spread == 0) return b;
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  const at::Tensor factor =
      at::randint(-spread, spread + 1, b.keys.sizes(), gen, at::TensorOptions().dtype(at::kFloat))
          .exp2();
  b.keys = (b.keys.to(at::kFloat) * factor).to(b.keys.scalar_type());
  b.keys_float = b.keys_float * factor.to(at::kDouble);  // exact: powers of two
  return b;
}

struct TensorCoreCase {
  at::ScalarType dtype;
  std::int64_t heads, head_dim, k;
  std::vector<std::int64_t> lengths;
  double zero_keys;
  int spread;  // see spread_keys
};

std::string case_name(const ::testing::TestParamInfo<TensorCoreCase>& info) {
  const TensorCoreCase& c = info.param;
  return std::string(c.dtype == at::kBFloat16 ? "Bf16" : "Fp8") + "_H" + std::to_string(c.heads) +
         "_D" + std::to_string(c.head_dim) + "_K" + std::to_string(c.k) + "_B" +
         std::to_string(c.lengths.size()) + (c.zero_keys > 0 ? "_ZeroKeys" : "") +
         (c.spread > 0 ? "_Spread" + std::to_string(c.spread) : "");
}

class TensorCoreIndexerTest : public ::testing::TestWithParam<TensorCoreCase> {};

// Per item: the GPU's scores within the MMA bound, the twin's within the float64-dot bound, and
// the top-k indices equal wherever the twin's scores are more than twice their distance apart.
// Prints the largest error as a fraction of the bound, and as c in c 2^-23 ceil(d/16) A.
TEST_P(TensorCoreIndexerTest, WithinBoundAndTopkAgreesWhereSeparated) {
  SAMEBITS_REQUIRE_CUDA();
  const TensorCoreCase& c = GetParam();
  const IndexerBatch b = spread_keys(
      indexer_batch(c.lengths, c.heads, c.head_dim, c.dtype, false, 41, c.zero_keys), c.spread, 43);
  const IndexerOutputs gpu = run_indexer(b, c.k, true, IndexerAlgorithm::tensor_cores);
  const IndexerOutputs twin = run_indexer(b, c.k, false, IndexerAlgorithm::tensor_cores);
  const at::Tensor gpu_scores = gpu.scores.cpu();
  double worst_fraction = 0;
  std::int64_t checked_positions = 0, positions = 0;
  for (std::size_t i = 0; i < c.lengths.size(); ++i) {
    const auto item = static_cast<std::int64_t>(i);
    const std::int64_t start = b.offsets[item].item<std::int64_t>(), length = c.lengths[i];
    if (length == 0) continue;
    double worst = 0;
    EXPECT_TRUE(scores_within_bound(gpu_scores.narrow(0, start, length), b, item,
                                    DotArithmetic::mma, &worst));
    worst_fraction = std::max(worst_fraction, worst);
    EXPECT_TRUE(
        scores_within_bound(twin.scores.narrow(0, start, length), b, item, DotArithmetic::float64));
    const double tau = (indexer_score_bounds(b, item, DotArithmetic::mma) +
                        indexer_score_bounds(b, item, DotArithmetic::float64))
                           .max()
                           .item<double>();
    const std::int64_t kept = std::min(c.k, length);
    std::int64_t checked = 0;
    EXPECT_TRUE(separated_positions_agree(twin.scores.narrow(0, start, length),
                                          gpu.top_indices[item].narrow(0, 0, kept), tau, &checked))
        << "item " << item;
    checked_positions += checked;
    positions += kept;
  }
  std::printf(
      "[ bound    ] worst |error| / bound %.3g; separated top-k positions checked %lld of %lld\n",
      worst_fraction, static_cast<long long>(checked_positions), static_cast<long long>(positions));
  // The bound is a worst case, far above the errors seen (the line above), so dense scores leave
  // few positions separated; some must be, or the index check would be empty.
  EXPECT_GT(checked_positions, 0) << "no top-k position was separated: the check is vacuous";
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, TensorCoreIndexerTest,
    ::testing::Values(TensorCoreCase{at::kBFloat16, 4, 8, 5, {1, 63, 64, 65, 200}, 0.0, 0},
                      TensorCoreCase{at::kBFloat16, 64, 128, 2048, {4096, 2500, 8192}, 0.0, 0},
                      TensorCoreCase{at::kBFloat16, 64, 128, 2048, {4096, 5000}, 0.5, 0},
                      TensorCoreCase{at::kBFloat16, 16, 12, 16, {100, 3000}, 0.0, 0},
                      TensorCoreCase{at::kBFloat16, 32, 256, 100, {700, 129}, 0.0, 0},
                      TensorCoreCase{at::kBFloat16, 64, 128, 256, {3000, 1000}, 0.0, 20},
                      TensorCoreCase{at::kBFloat16, 8, 64, 64, {2000}, 0.0, 60},
                      TensorCoreCase{at::kFloat8_e4m3fn, 64, 128, 2048, {4096, 6000}, 0.0, 0},
                      TensorCoreCase{at::kFloat8_e4m3fn, 8, 36, 32, {10, 1000}, 0.5, 0}),
    case_name);

// Exact inputs (every product and partial sum needs few bits): MMA alignment loses nothing, so
// the GPU's tensor-core scores equal float64 bit for bit, bf16 and fp8 with scales.
TEST(TensorCoreIndexer, ExactInputsGiveFloat64Bits) {
  SAMEBITS_REQUIRE_CUDA();
  for (const at::ScalarType dtype : {at::kBFloat16, at::kFloat8_e4m3fn}) {
    const IndexerBatch b = indexer_batch({37, 300, 130}, 64, 128, dtype, true, 3);
    const at::Tensor scores = run_indexer(b, 20, true, IndexerAlgorithm::tensor_cores).scores.cpu();
    for (std::int64_t item = 0; item < 3; ++item) {
      const std::int64_t start = b.offsets[item].item<std::int64_t>();
      const at::Tensor expected = indexer_scores_float64(b, item).to(at::kFloat);
      const at::Tensor got = scores.narrow(0, start, expected.numel());
      EXPECT_TRUE(at::equal(expected.view(at::kInt), got.view(at::kInt)))
          << (dtype == at::kBFloat16 ? "bf16" : "fp8") << " item " << item << ": "
          << expected.ne(got).sum().item<std::int64_t>() << " scores differ";
    }
  }
}

// Control: the tensor_cores path is not the fma path under another name. On normal inputs at
// d = 128 the two algorithms' GPU bits differ somewhere, and the fma path's equal its twin's.
TEST(TensorCoreIndexer, DiffersFromTheExactPath) {
  SAMEBITS_REQUIRE_CUDA();
  const IndexerBatch b = indexer_batch({4096}, 64, 128, at::kBFloat16, false, 47);
  const at::Tensor tensor_cores =
      run_indexer(b, 64, true, IndexerAlgorithm::tensor_cores).scores.cpu();
  const at::Tensor exact = run_indexer(b, 64, true, IndexerAlgorithm::exact).scores.cpu();
  const std::int64_t differ =
      tensor_cores.view(at::kInt).ne(exact.view(at::kInt)).sum().item<std::int64_t>();
  std::printf("[ control  ] %lld of 4096 scores differ between the algorithms\n",
              static_cast<long long>(differ));
  EXPECT_GT(differ, 0);
}

}  // namespace indexer_tensor_cores_gpu_test_file
}  // namespace samebits
