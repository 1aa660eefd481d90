// The CPU twin of samebits.linear: float32 as one std::fma chain per output (the GPU's bits), bf16
// / f16 as 16-wide steps summed in float64 and rounded once a step (invariant_linear_order.h).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/common/half_bits.h"
#include "kernels/linear/invariant_linear.h"
#include "kernels/linear/invariant_linear_order.h"

namespace samebits::kernels {
namespace {

// Round to nearest even of a float32 to bf16 / f16 bits, as __float2bfloat16_rn / __float2half_rn
// (NaN to the canonical NaN of each type).
std::uint16_t float_to_bfloat16(float f) {
  const std::uint32_t bits = float_to_bits(f);
  if (std::isnan(f)) return static_cast<std::uint16_t>(0x7fffu);
  const std::uint32_t rounded = bits + 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>(rounded >> 16);
}

std::uint16_t float_to_float16(float f) {
  const std::uint32_t bits = float_to_bits(f);
  const std::uint32_t sign = (bits >> 16) & 0x8000u;
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return static_cast<std::uint16_t>(0x7fffu);          // NaN
  if (magnitude >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // inf
  const int exponent = static_cast<int>(magnitude >> 23) - 127;
  std::uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  if (magnitude == 0) return static_cast<std::uint16_t>(sign);
  if (exponent < -14) {  // subnormal half: units of 2^-24
    const int shift = -exponent - 14 + 13;
    if (shift > 24) return static_cast<std::uint16_t>(sign);
    const std::uint32_t m = mantissa >> shift, rest = mantissa & ((1u << shift) - 1);
    const std::uint32_t half = 1u << (shift - 1);
    const std::uint32_t r = m + ((rest > half || (rest == half && (m & 1u))) ? 1u : 0u);
    return static_cast<std::uint16_t>(sign | r);
  }
  std::uint32_t h = (static_cast<std::uint32_t>(exponent + 15) << 10) | ((mantissa >> 13) & 0x3ffu);
  const std::uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent
  return static_cast<std::uint16_t>(sign | h);
}

// Rows of a 16-bit or float32 input widened to float32 (exact), contiguous [lines, k].
std::vector<float> widened(DType dtype, const void* data, std::int64_t lines, std::int64_t k,
                           std::int64_t ld) {
  std::vector<float> out(static_cast<std::size_t>(lines * k));
  for (std::int64_t r = 0; r < lines; ++r) {
    float* to = out.data() + r * k;
    if (dtype == DType::f32) {
      if (k > 0) std::memcpy(to, static_cast<const float*>(data) + r * ld, sizeof(float) * k);
      continue;
    }
    const auto* from = static_cast<const std::uint16_t*>(data) + r * ld;
    for (std::int64_t j = 0; j < k; ++j)
      to[j] = dtype == DType::bf16 ? bfloat16_to_float(from[j]) : float16_to_float(from[j]);
  }
  return out;
}

// acc[r] = fma(x[k], w[r][k], acc[r]) for k ascending from +0, for kChains rows of w at once
// (independent chains interleaved: each keeps its own order). std::fma is correctly rounded
// however it is computed; on x86 with FMA the instruction replaces glibc's call, same bits.
constexpr int kChains = 4;
template <int Chains>
inline void fma_chains_generic(const float* x, const float* w, std::int64_t k, float* out) {
  float acc[Chains] = {};
  for (std::int64_t j = 0; j < k; ++j)
    for (int r = 0; r < Chains; ++r) acc[r] = std::fma(x[j], w[r * k + j], acc[r]);
  for (int r = 0; r < Chains; ++r) out[r] = acc[r];
}
#if defined(__x86_64__) && defined(__GNUC__)
template <int Chains>
__attribute__((target("fma"))) void fma_chains_hardware(const float* x, const float* w,
                                                        std::int64_t k, float* out) {
  float acc[Chains] = {};
  for (std::int64_t j = 0; j < k; ++j)
    for (int r = 0; r < Chains; ++r) acc[r] = __builtin_fmaf(x[j], w[r * k + j], acc[r]);
  for (int r = 0; r < Chains; ++r) out[r] = acc[r];
}
#endif
template <int Chains>
void fma_chains(const float* x, const float* w, std::int64_t k, float* out) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool hardware = __builtin_cpu_supports("fma");
  if (hardware) return fma_chains_hardware<Chains>(x, w, k, out);
#endif
  fma_chains_generic<Chains>(x, w, k, out);
}

// The twin's model of ceil(K / 16) MMA steps: per step, float64 sum from the accumulator of the
// step's exact products ascending, rounded once to float32; Chains rows of w at once.
template <int Chains>
void mma_steps(const float* x, const float* w, std::int64_t k, float* out) {
  float acc[Chains] = {};
  for (std::int64_t s = 0; s < k; s += linear_order::kStep) {
    const std::int64_t end = s + linear_order::kStep < k ? s + linear_order::kStep : k;
    double t[Chains];
    for (int r = 0; r < Chains; ++r) t[r] = static_cast<double>(acc[r]);
    for (std::int64_t j = s; j < end; ++j) {
      for (int r = 0; r < Chains; ++r)
        t[r] += static_cast<double>(x[j]) * static_cast<double>(w[r * k + j]);
    }
    for (int r = 0; r < Chains; ++r) acc[r] = static_cast<float>(t[r]);
  }
  for (int r = 0; r < Chains; ++r) out[r] = acc[r];
}

}  // namespace

Status invariant_linear_cpu(const LinearProblem& p) {
  if (!linear_problem_valid(p)) return Status::invalid_argument;
  if (p.rows == 0 || p.n == 0) return Status::ok;
  const std::vector<float> w = widened(p.dtype, p.w, p.n, p.k, p.w_row_stride);
  std::vector<float> bias;
  if (p.bias) bias = widened(p.dtype, p.bias, 1, p.n, p.n);
  // A block of rows at a time, each against every w row: w streams once per block, not per row.
  constexpr std::int64_t kBlockRows = 16;
  for (std::int64_t r0 = 0; r0 < p.rows; r0 += kBlockRows) {
    const std::int64_t block = p.rows - r0 < kBlockRows ? p.rows - r0 : kBlockRows;
    const void* first = static_cast<const unsigned char*>(p.x) +
                        r0 * p.x_row_stride * (p.dtype == DType::f32 ? 4 : 2);
    const std::vector<float> x = widened(p.dtype, first, block, p.k, p.x_row_stride);
    // kChains w rows against every row of the block: the w rows stay in cache across the block.
    for (std::int64_t col = 0; col < p.n; col += kChains) {
      const int chains = p.n - col >= kChains ? kChains : 1;
      const float* wrows = w.data() + col * p.k;
      for (std::int64_t i = 0; i < block; ++i) {
        const float* xrow = x.data() + i * p.k;
        float acc[kChains];
        const bool f32 = p.dtype == DType::f32;
        if (f32 && chains == kChains) fma_chains<kChains>(xrow, wrows, p.k, acc);
        if (f32 && chains == 1) fma_chains<1>(xrow, wrows, p.k, acc);
        if (!f32 && chains == kChains) mma_steps<kChains>(xrow, wrows, p.k, acc);
        if (!f32 && chains == 1) mma_steps<1>(xrow, wrows, p.k, acc);
        for (int r = 0; r < chains; ++r) {
          const float* b = p.bias ? &bias[static_cast<std::size_t>(col + r)] : nullptr;
          const float v = linear_order::add_bias(acc[r], b);
          const std::int64_t at = (r0 + i) * p.n + col + r;
          if (f32)
            static_cast<float*>(p.out)[at] = v;
          else if (p.dtype == DType::bf16)
            static_cast<std::uint16_t*>(p.out)[at] = float_to_bfloat16(v);
          else
            static_cast<std::uint16_t*>(p.out)[at] = float_to_float16(v);
        }
      }
      if (chains == 1) col += 1 - kChains;  // the tail goes one column at a time
    }
  }
  return Status::ok;
}

}  // namespace samebits::kernels
