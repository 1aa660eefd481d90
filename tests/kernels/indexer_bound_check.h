// Checks of indexer scores against float64 within kernels/indexer/indexer_error_bound.h's bound,
// and of a top-k against a twin's wherever the twin's scores are separated by more than the bound.
#pragma once

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ios>

#include "kernels/indexer/indexer_error_bound.h"
#include "tests/kernels/indexer_inputs.h"

namespace samebits {

namespace indexer_bound = kernels::indexer_bound;

// Per key of item `item`: the bound on |score - float64 score| for arithmetic `a`, float64 [L].
inline at::Tensor indexer_score_bounds(const IndexerBatch& b, std::int64_t item,
                                       indexer_bound::DotArithmetic a) {
  const std::int64_t start = b.offsets[item].item<std::int64_t>();
  const std::int64_t length = b.offsets[item + 1].item<std::int64_t>() - start;
  const at::Tensor w = b.weights[item].to(at::kDouble).abs();
  // q_float and keys_float carry the scales, so A_t = sum_h |w_h| |s| sum_j |q_hj k_tj| directly.
  const at::Tensor magnitude =
      at::matmul(b.q_float[item].abs(), b.keys_float.narrow(0, start, length).abs().t())
          .mul(w.unsqueeze(1))
          .sum(0);
  double scale = 1.0;
  if (b.q_scale) scale *= std::abs((*b.q_scale)[item].item<double>());
  if (b.k_scale) scale *= std::abs((*b.k_scale)[item].item<double>());
  const double weight_mass = scale * w.sum().item<double>();
  const std::int64_t heads = b.q.size(1), head_dim = b.q.size(2);
  // score_bound is linear in the magnitude: its value at 0 and at 1 give the whole map.
  const double floor = indexer_bound::score_bound(a, heads, head_dim, 0.0, weight_mass);
  const double slope = indexer_bound::score_bound(a, heads, head_dim, 1.0, weight_mass) - floor;
  return magnitude * slope + floor;
}

inline std::uint32_t float_bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// Every score of the item within its bound of float64; `worst` gets max |error| / bound.
inline ::testing::AssertionResult scores_within_bound(const at::Tensor& item_scores,
                                                      const IndexerBatch& b, std::int64_t item,
                                                      indexer_bound::DotArithmetic a,
                                                      double* worst = nullptr) {
  const at::Tensor got = item_scores.cpu().to(at::kFloat).contiguous();
  const at::Tensor expected = indexer_scores_float64(b, item);
  const at::Tensor bound = indexer_score_bounds(b, item, a);
  const at::Tensor error = (got.to(at::kDouble) - expected).abs();
  const at::Tensor ratio = error / bound;
  if (worst) *worst = ratio.numel() ? ratio.max().item<double>() : 0.0;
  const at::Tensor over = error.gt(bound).logical_or(error.isnan());
  const std::int64_t count = over.sum().item<std::int64_t>();
  if (count == 0) return ::testing::AssertionSuccess();
  const std::int64_t t = over.nonzero().view(-1)[0].item<std::int64_t>();
  return ::testing::AssertionFailure()
         << count << " of " << got.numel() << " scores of item " << item
         << " exceed the bound; first key " << t << ": got " << got[t].item<float>() << " (0x"
         << std::hex << float_bits(got[t].item<float>()) << std::dec << "), float64 "
         << expected[t].item<double>() << ", |error| " << error[t].item<double>() << " > bound "
         << bound[t].item<double>();
}

// Where the twin's sorted scores put key j more than 2 tau away from both neighbours (tau bounds
// |scores - twin scores| for every key), no key can cross it, so the top-k's j-th index must be
// the twin's. `checked` gets how many of the k positions were so separated.
inline ::testing::AssertionResult separated_positions_agree(const at::Tensor& twin_scores,
                                                            const at::Tensor& indices, double tau,
                                                            std::int64_t* checked = nullptr) {
  const at::Tensor s = twin_scores.cpu().to(at::kDouble).contiguous();
  const at::Tensor order = at::argsort(s, /*stable=*/true, /*dim=*/0, /*descending=*/true);
  const at::Tensor sorted = s.index({order});
  const at::Tensor got = indices.cpu().contiguous();
  const std::int64_t n = s.numel(), k = std::min<std::int64_t>(got.numel(), n);
  const auto* v = sorted.const_data_ptr<double>();
  const auto* want = order.const_data_ptr<std::int64_t>();
  const auto* have = got.const_data_ptr<std::int64_t>();
  std::int64_t count = 0;
  for (std::int64_t j = 0; j < k; ++j) {
    const bool above = j == 0 || v[j - 1] - v[j] > 2 * tau;
    const bool below = j + 1 == n || v[j] - v[j + 1] > 2 * tau;
    if (!above || !below) continue;
    ++count;
    if (have[j] != want[j]) {
      return ::testing::AssertionFailure()
             << "position " << j << ": index " << have[j] << ", the twin's " << want[j]
             << " (twin score " << v[j] << ", separated by more than 2 tau = " << 2 * tau << ")";
    }
  }
  if (checked) *checked = count;
  return ::testing::AssertionSuccess();
}

}  // namespace samebits
