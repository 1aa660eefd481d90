// The CPU twin of the invariant softmax: invariant_softmax_order.h's operations one after another,
// in plain float32 (built without FMA contraction). The CUDA kernel must match it bit for bit.
#include <algorithm>
#include <vector>

#include "kernels/common/half_bits.h"
#include "kernels/softmax/invariant_softmax.h"
#include "kernels/softmax/invariant_softmax_order.h"

namespace samebits::kernels {
namespace {

using namespace softmax_order;

float load(const void* x, DType dtype, std::int64_t index) {
  switch (dtype) {
    case DType::f32: return static_cast<const float*>(x)[index];
    case DType::f16: return float16_to_float(static_cast<const std::uint16_t*>(x)[index]);
    case DType::bf16: return bfloat16_to_float(static_cast<const std::uint16_t*>(x)[index]);
  }
  return 0.0f;
}

void store(void* out, DType dtype, std::int64_t index, float r) {
  switch (dtype) {
    case DType::f32: static_cast<float*>(out)[index] = canonical(r); return;
    case DType::f16: static_cast<std::uint16_t*>(out)[index] = float_to_float16_bits(r); return;
    case DType::bf16: static_cast<std::uint16_t*>(out)[index] = float_to_bfloat16_bits(r); return;
  }
}

// Step 3: the fixed tree over the kPartials partials.
float tree_sum(const std::vector<float>& partial) {
  float q[kLogicalThreads];
  for (int t = 0; t < kLogicalThreads; ++t) {
    const float* p = &partial[static_cast<std::size_t>(kVector * t)];
    q[t] = (p[0] + p[1]) + (p[2] + p[3]);
  }
  float w[kWarps];
  for (int warp = 0; warp < kWarps; ++warp) {
    float* lane = &q[warp * kWarp];
    for (int h = kWarp / 2; h >= 1; h /= 2) {
      for (int l = 0; l < h; ++l) lane[l] = lane[l] + lane[l + h];
    }
    w[warp] = lane[0];
  }
  for (int h = kWarps / 2; h >= 1; h /= 2) {
    for (int l = 0; l < h; ++l) w[l] = w[l] + w[l + h];
  }
  return w[0];
}

// The rows one after another. Inlined into two callers: one built for the host's fused
// multiply-add instruction, one calling the C library's fmaf (each correctly rounded, so both
// give the same bits; the instruction is about 4 times faster per exp).
[[gnu::always_inline]] inline Status softmax_rows(const SoftmaxProblem& p) {
  std::vector<float> partial(kPartials);
  for (std::int64_t r = 0; r < p.rows; ++r) {
    const std::int64_t base = r * p.row_stride;
    const std::int64_t out_base = r * p.out_row_stride;
    float m = -infinity();
    for (std::int64_t i = 0; i < p.length; ++i) m = max_combine(m, load(p.x, p.dtype, base + i));
    std::fill(partial.begin(), partial.end(), 0.0f);
    for (std::int64_t i = 0; i < p.length; ++i) {
      float& acc = partial[static_cast<std::size_t>(i % kPartials)];
      acc = acc + exp_invariant(load(p.x, p.dtype, base + i) - m);
    }
    const float s = tree_sum(partial);
    const float log_s = p.log ? log_invariant(s) : 0.0f;
    const float inverse_s = 1.0f / s;
    for (std::int64_t i = 0; i < p.length; ++i) {
      const float x = load(p.x, p.dtype, base + i);
      store(p.out, p.out_dtype, out_base + i,
            p.log ? log_softmax_value(x, m, log_s) : softmax_value(x, m, inverse_s));
    }
  }
  return Status::ok;
}

#if defined(__x86_64__) && defined(__GNUC__)
#define SAMEBITS_FMA_DISPATCH 1
[[gnu::target("fma")]] Status softmax_rows_fma(const SoftmaxProblem& p) {
  return softmax_rows(p);
}
[[gnu::target("fma")]] float exp_fma(float x) {
  return exp_invariant(x);
}
bool host_has_fma() {
  static const bool has = __builtin_cpu_supports("fma");
  return has;
}
#endif

}  // namespace

Status invariant_softmax_cpu(const SoftmaxProblem& p) {
  if (!p.x || !p.out || p.rows < 0 || p.length < 1) return Status::invalid_argument;
#if defined(SAMEBITS_FMA_DISPATCH)
  if (host_has_fma()) return softmax_rows_fma(p);
#endif
  return softmax_rows(p);
}

float softmax_exp_cpu(float x) {
#if defined(SAMEBITS_FMA_DISPATCH)
  if (host_has_fma()) return exp_fma(x);
#endif
  return softmax_order::exp_invariant(x);
}
float softmax_log_cpu(float x) {
  return softmax_order::log_invariant(x);
}

}  // namespace samebits::kernels
