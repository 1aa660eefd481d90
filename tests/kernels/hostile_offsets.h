// A corpus of hostile packed-row metadata (offsets past the end, decreasing, longer than
// max_length, negative, int64 extremes), each row's flaws stated by hand, and the CPU twins'
// answers to it: the oracle of the top-k and indexer guard tests, on the CPU and on the GPU.
#pragma once

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernels/common/binding_support.h"
#include "kernels/indexer/invariant_indexer.h"
#include "kernels/topk/invariant_topk.h"

namespace samebits {

struct HostileCase {
  std::string name;
  std::int64_t total;  // the packed tensor's elements (keys' rows for the indexer)
  std::int64_t max_length;
  std::vector<std::int64_t> offsets;  // rows + 1
  std::vector<std::int32_t> flaws;    // per row, by hand (kernels/common/row_guard.h's bits)
};

inline std::vector<HostileCase> hostile_cases() {
  using kernels::kRowDecreasing, kernels::kRowOutside, kernels::kRowTooLong;
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max();
  return {
      {"clean", 300, 300, {0, 100, 100, 300}, {0, 0, 0}},  // the negative control
      {"past_end", 300, 300, {0, 100, 301}, {0, kRowOutside}},
      {"far_past_end", 300, 300, {0, 50, std::int64_t{1} << 40}, {0, kRowOutside | kRowTooLong}},
      {"decreasing", 300, 300, {0, 200, 100, 300}, {0, kRowDecreasing, 0}},
      {"longer_than_max_length", 300, 150, {0, 10, 200, 300}, {0, kRowTooLong, 0}},
      {"negative_start", 300, 300, {-5, 10, 20}, {kRowOutside, 0}},
      {"all_negative", 300, 300, {-100, -50, 0}, {kRowOutside, kRowOutside}},
      {"start_past_end", 300, 300, {0, 400, 400}, {kRowOutside | kRowTooLong, kRowOutside}},
      {"int64_extremes", 300, 300, {lo, hi, 0}, {kRowOutside, kRowOutside | kRowDecreasing}},
      {"long_row_past_max_length", 40000, 20000, {0, 30000, 40000}, {kRowTooLong, 0}},
  };
}

inline std::int64_t rows_of(const HostileCase& c) {
  return static_cast<std::int64_t>(c.offsets.size()) - 1;
}

// The OR of the stated flaws: the status every guarded call must report.
inline std::int32_t stated_status(const HostileCase& c) {
  std::int32_t all = 0;
  for (const std::int32_t f : c.flaws) all |= f;
  return all;
}

// Whether clean row r shares an element with another clean row (possible once a row decreases):
// the indexer writes both items' scores there, so which one stays, and both items' top-k, are
// unspecified (memory-safe, and the status says a row decreased).
inline bool overlaps_clean_row(const HostileCase& c, std::int64_t r) {
  for (std::int64_t s = 0; s < rows_of(c); ++s) {
    if (s == r || c.flaws[s] || c.flaws[r]) continue;
    if (std::max(c.offsets[r], c.offsets[s]) < std::min(c.offsets[r + 1], c.offsets[s + 1]))
      return true;
  }
  return false;
}

// A marked slot's value bits: NaN in the dtype (0x7fc00000, 0x7e00, 0x7fc0).
inline std::uint32_t marked_bits(at::ScalarType dtype) {
  return dtype == at::kFloat ? 0x7fc00000u : dtype == at::kHalf ? 0x7e00u : 0x7fc0u;
}

struct TopkOutcome {
  at::Tensor values, indices;  // [rows, k]
  std::int32_t status = 0;
};

// The top-k twin over `values` (1-D, CPU, c.total elements) with the case's offsets.
inline TopkOutcome twin_topk(const at::Tensor& values, const HostileCase& c, std::int64_t k) {
  TopkOutcome out;
  out.values = at::empty({rows_of(c), k}, values.options());
  out.indices = at::empty({rows_of(c), k}, values.options().dtype(at::kLong));
  kernels::TopkProblem p;
  p.values = values.const_data_ptr();
  p.dtype = kernel_dtype(values, "test");
  p.rows = rows_of(c);
  p.offsets = c.offsets.data();
  p.max_length = c.max_length;
  p.total = c.total;
  p.k = k;
  p.out_values = out.values.mutable_data_ptr();
  p.out_indices = out.indices.mutable_data_ptr<std::int64_t>();
  p.status = &out.status;
  EXPECT_EQ(kernels::invariant_topk_cpu(p), kernels::Status::ok) << c.name;
  return out;
}

// An indexer problem of `items` items over c.total keys of dim 8 (bf16), 4 heads, seeded.
struct IndexerInputs {
  at::Tensor q, keys, weights;  // [B, 4, 8] bf16, [total, 8] bf16, [B, 4] float32
};

inline IndexerInputs indexer_inputs(const HostileCase& c, std::uint64_t seed) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  const auto f32 = at::TensorOptions().dtype(at::kFloat);
  return {at::randn({rows_of(c), 4, 8}, gen, f32).to(at::kBFloat16),
          at::randn({c.total, 8}, gen, f32).to(at::kBFloat16), at::rand({rows_of(c), 4}, gen, f32)};
}

// A score no kernel writes: an item that is read nowhere leaves its positions holding it.
constexpr float kUnwrittenScore = -12345.0f;

struct IndexerOutcome {
  at::Tensor scores, top_values, top_indices;
  std::int32_t status = 0;
};

// The problem over CPU tensors (the twin's) or device copies of them; outputs allocated by the
// caller and pointed to by out (scores pre-filled with kUnwrittenScore).
inline kernels::IndexerProblem indexer_problem(const IndexerInputs& in, const HostileCase& c,
                                               const std::int64_t* offsets, std::int64_t k,
                                               kernels::IndexerAlgorithm algorithm) {
  kernels::IndexerProblem p;
  p.items = rows_of(c);
  p.heads = 4;
  p.head_dim = 8;
  p.q = in.q.const_data_ptr();
  p.keys = in.keys.const_data_ptr();
  p.offsets = offsets;
  p.weights = in.weights.const_data_ptr<float>();
  p.max_length = c.max_length;
  p.total_keys = c.total;
  p.k = k;
  p.algorithm = algorithm;
  return p;
}

inline IndexerOutcome twin_indexer(const IndexerInputs& in, const HostileCase& c, std::int64_t k,
                                   kernels::IndexerAlgorithm algorithm) {
  IndexerOutcome out;
  out.scores = at::full({c.total}, kUnwrittenScore, at::kFloat);
  out.top_values = at::empty({rows_of(c), k}, at::kFloat);
  out.top_indices = at::empty({rows_of(c), k}, at::kLong);
  kernels::IndexerProblem p = indexer_problem(in, c, c.offsets.data(), k, algorithm);
  p.scores = out.scores.mutable_data_ptr<float>();
  p.top_values = out.top_values.mutable_data_ptr<float>();
  p.top_indices = out.top_indices.mutable_data_ptr<std::int64_t>();
  p.status = &out.status;
  EXPECT_EQ(kernels::invariant_indexer_cpu(p), kernels::Status::ok) << c.name;
  return out;
}

}  // namespace samebits
