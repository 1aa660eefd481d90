// Seeded batches for the indexer tests (q [B, H, d], packed keys, offsets, weights, per-item fp8
// scales; exactly summable or normal, bf16 or fp8 e4m3), their float64 scores and one run of them.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/indexer/binding.h"

namespace samebits {

struct IndexerBatch {
  at::Tensor q, keys, offsets, weights;  // q and keys in the input dtype
  std::optional<at::Tensor> q_scale, k_scale;
  at::Tensor q_float, keys_float;  // the same values dequantized, float64 (the reference's view)
  std::int64_t max_length = 0;
};

// exact: q in {-1, -1/2, 0, 1/2, 1}, keys multiples of 1/4 in [-2, 2], weights multiples of 1/8
// in [-1, 1], scales powers of two: every product and partial sum of a score is exact in float32
// when H * d * 4 < 2^24. Otherwise normal values scaled like the harness's indexer.
inline IndexerBatch indexer_batch(const std::vector<std::int64_t>& lengths, std::int64_t heads,
                                  std::int64_t head_dim, at::ScalarType dtype, bool exact,
                                  std::uint64_t seed, double zero_key_fraction = 0.0) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  const auto f32 = at::TensorOptions().dtype(at::kFloat);
  const auto items = static_cast<std::int64_t>(lengths.size());
  std::int64_t total = 0;
  IndexerBatch b;
  for (std::int64_t l : lengths) {
    total += l;
    b.max_length = std::max(b.max_length, l);
  }
  std::vector<std::int64_t> offsets{0};
  for (std::int64_t l : lengths) offsets.push_back(offsets.back() + l);
  b.offsets = at::tensor(offsets, at::kLong);
  at::Tensor q, keys;
  if (exact) {
    q = at::randint(-2, 3, {items, heads, head_dim}, gen, f32).div_(2);
    keys = at::randint(-8, 9, {total, head_dim}, gen, f32).div_(4);
    b.weights = at::randint(-8, 9, {items, heads}, gen, f32).div_(8);
  } else {
    q = at::randn({items, heads, head_dim}, gen, f32).div_(8);
    keys = at::randn({total, head_dim}, gen, f32);
    b.weights = at::randn({items, heads}, gen, f32).div_(8);
  }
  if (zero_key_fraction > 0) {
    keys.masked_fill_(at::rand({total, 1}, gen, f32).lt(zero_key_fraction), 0.0);
  }
  at::Tensor q_scale = at::ones({items}, f32), k_scale = at::ones({items}, f32);
  if (dtype == at::kFloat8_e4m3fn) {
    // Per-item powers of two, so quantizing exact values keeps them exact (|x| <= 2 < 448).
    q_scale = at::randint(-3, 3, {items}, gen, f32).exp2();
    k_scale = at::randint(-3, 3, {items}, gen, f32).exp2();
    b.q_scale = q_scale;
    b.k_scale = k_scale;
  }
  const at::Tensor item_of_key = at::repeat_interleave(at::arange(items), at::tensor(lengths));
  b.q = (q / q_scale.view({items, 1, 1})).to(dtype);
  b.keys = (keys / k_scale.index({item_of_key}).view({total, 1})).to(dtype);
  b.q_float = b.q.to(at::kDouble) * q_scale.to(at::kDouble).view({items, 1, 1});
  b.keys_float =
      b.keys.to(at::kDouble) * k_scale.index({item_of_key}).to(at::kDouble).view({total, 1});
  return b;
}

// The whole batch through samebits::invariant_indexer by `algorithm`, on CUDA or the CPU twin.
inline IndexerOutputs run_indexer(const IndexerBatch& b, std::int64_t k, bool cuda,
                                  kernels::IndexerAlgorithm algorithm) {
  auto on = [&](const at::Tensor& t) { return cuda ? t.cuda() : t; };
  std::optional<at::Tensor> qs, ks;
  if (b.q_scale) qs = on(*b.q_scale);
  if (b.k_scale) ks = on(*b.k_scale);
  return invariant_indexer(on(b.q), on(b.keys), on(b.offsets), on(b.weights), k, b.max_length, qs,
                           ks, false, algorithm);
}

// The float64 scores of item `item`: sum over heads of relu(q K^T) * w, in float64.
inline at::Tensor indexer_scores_float64(const IndexerBatch& b, std::int64_t item) {
  const std::int64_t start = b.offsets[item].item<std::int64_t>();
  const std::int64_t length = b.offsets[item + 1].item<std::int64_t>() - start;
  const at::Tensor keys = b.keys_float.narrow(0, start, length);
  return at::matmul(b.q_float[item], keys.t())
      .relu()
      .mul(b.weights[item].to(at::kDouble).unsqueeze(1))
      .sum(0);
}

}  // namespace samebits
