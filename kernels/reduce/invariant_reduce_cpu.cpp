// The CPU twin of the invariant reduction: invariant_reduce_order.h's adds, one after another, in
// plain float32 (built without FMA contraction). The CUDA kernels must match it bit for bit.
#include <cmath>
#include <vector>

#include "kernels/common/half_bits.h"
#include "kernels/reduce/invariant_reduce.h"
#include "kernels/reduce/invariant_reduce_order.h"

namespace samebits::kernels {
namespace {

using namespace reduce_order;

float load(const void* x, DType dtype, std::int64_t index) {
  switch (dtype) {
    case DType::f32: return static_cast<const float*>(x)[index];
    case DType::f16: return float16_to_float(static_cast<const std::uint16_t*>(x)[index]);
    case DType::bf16: return bfloat16_to_float(static_cast<const std::uint16_t*>(x)[index]);
  }
  return 0.0f;
}

// One chunk (n <= kChunk elements, element p read by get(p)): 256 lane sums, then the tree.
template <typename Get>
float chunk_sum(const Get& get, std::int64_t n) {
  float lane[kLanes];
  for (int t = 0; t < kLanes; ++t) {
    float acc = 0.0f;
    for (int k = 0; k < kSteps; ++k) {
      for (int j = 0; j < kVector; ++j) {
        const std::int64_t p = std::int64_t{k} * kStepSpan + kVector * t + j;
        if (p < n) acc = acc + get(p);
      }
    }
    lane[t] = acc;
  }
  for (int s = kLanes / 2; s >= 1; s /= 2) {
    for (int t = 0; t < s; ++t) lane[t] = lane[t] + lane[t + s];
  }
  return lane[0];
}

float canonical_sum_of(const std::vector<float>& v);

// Any length: chunk sums in chunk order, reduced again by the same rule until one value is left.
template <typename Get>
float canonical_sum(const Get& get, std::int64_t n) {
  if (n <= kChunk) return chunk_sum(get, n);
  const std::int64_t c = chunks(n);
  std::vector<float> partial(static_cast<std::size_t>(c));
  for (std::int64_t i = 0; i < c; ++i) {
    const std::int64_t start = i * kChunk;
    const std::int64_t len = n - start < kChunk ? n - start : kChunk;
    partial[static_cast<std::size_t>(i)] =
        chunk_sum([&](std::int64_t p) { return get(start + p); }, len);
  }
  return canonical_sum_of(partial);
}

// The chunk sums of a long reduction, summed by the same rule (a function, not a template, so the
// recursion does not instantiate itself).
float canonical_sum_of(const std::vector<float>& v) {
  return canonical_sum([&](std::int64_t p) { return v[static_cast<std::size_t>(p)]; },
                       static_cast<std::int64_t>(v.size()));
}

float finish(float sum, std::int64_t n, bool mean) {
  float r = mean ? sum / static_cast<float>(n) : sum;
  return std::isnan(r) ? canonical_nan() : r;
}

}  // namespace

Status invariant_reduce_cpu(const ReduceProblem& p) {
  if (!p.x || !p.out || p.outer < 0 || p.length < 0 || p.inner < 0) return Status::invalid_argument;
  for (std::int64_t o = 0; o < p.outer; ++o) {
    for (std::int64_t i = 0; i < p.inner; ++i) {
      const std::int64_t base = o * p.stride_outer + i * p.stride_inner;
      const float sum = canonical_sum(
          [&](std::int64_t l) { return load(p.x, p.dtype, base + l * p.stride_length); }, p.length);
      p.out[o * p.out_stride_outer + i * p.out_stride_inner] = finish(sum, p.length, p.mean);
    }
  }
  return Status::ok;
}

Status invariant_reduce_varlen_cpu(const VarlenReduceProblem& p) {
  if (!p.values || !p.offsets || !p.out || p.rows < 0) return Status::invalid_argument;
  for (std::int64_t r = 0; r < p.rows; ++r) {
    const std::int64_t start = p.offsets[r];
    const std::int64_t n = p.offsets[r + 1] - start;
    if (n < 0) return Status::invalid_argument;
    const float sum =
        canonical_sum([&](std::int64_t l) { return load(p.values, p.dtype, start + l); }, n);
    p.out[r] = finish(sum, n, p.mean);
  }
  return Status::ok;
}

}  // namespace samebits::kernels
