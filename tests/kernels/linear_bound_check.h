// Checks of samebits.linear outputs: bit for bit against another output (index, values, hex bits,
// ULP apart), and within kernels/linear/linear_error_bound.h's bound of float64 or of the twin.
#pragma once

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <ios>
#include <optional>

#include "kernels/common/status.h"
#include "kernels/linear/linear_error_bound.h"

namespace samebits {

namespace linear_bound = kernels::linear_bound;

inline kernels::DType linear_dtype(at::ScalarType t) {
  return t == at::kBFloat16 ? kernels::DType::bf16
         : t == at::kHalf   ? kernels::DType::f16
                            : kernels::DType::f32;
}

// The same bits everywhere (float32, float16 or bfloat16 tensors of one shape); else the count
// and the first differing element: index, both values, their bits in hex and how many ULPs apart.
inline ::testing::AssertionResult same_bits(const at::Tensor& got, const at::Tensor& want,
                                            const char* what) {
  if (got.sizes() != want.sizes() || got.scalar_type() != want.scalar_type()) {
    return ::testing::AssertionFailure()
           << what << ": shapes or dtypes differ: " << got.sizes() << " " << got.scalar_type()
           << " vs " << want.sizes() << " " << want.scalar_type();
  }
  const at::ScalarType bits_type = got.element_size() == 4 ? at::kInt : at::kShort;
  const at::Tensor a = got.cpu().contiguous().view(bits_type).reshape(-1).to(at::kLong);
  const at::Tensor b = want.cpu().contiguous().view(bits_type).reshape(-1).to(at::kLong);
  const at::Tensor differ = a.ne(b);
  const std::int64_t count = differ.sum().item<std::int64_t>();
  if (count == 0) return ::testing::AssertionSuccess();
  const std::int64_t i = differ.nonzero().view(-1)[0].item<std::int64_t>();
  // Sign-magnitude bits to a line of integers where adjacent floats are adjacent.
  const std::int64_t sign = got.element_size() == 4 ? (1LL << 31) : (1LL << 15);
  const auto ordered = [&](std::int64_t v) {
    const std::int64_t u = v < 0 ? v + 2 * sign : v;
    return u >= sign ? -(u - sign) : u;
  };
  const std::int64_t x = a[i].item<std::int64_t>(), y = b[i].item<std::int64_t>();
  const std::int64_t mask = 2 * sign - 1;
  return ::testing::AssertionFailure()
         << what << ": " << count << " of " << a.numel() << " differ; first at flat index " << i
         << " (row " << i / got.size(-1) << ", column " << i % got.size(-1)
         << "): " << got.cpu().reshape(-1)[i].item<double>() << " (0x" << std::hex << (x & mask)
         << ") vs " << want.cpu().reshape(-1)[i].item<double>() << " (0x" << (y & mask) << std::dec
         << "), " << (ordered(x) - ordered(y)) << " ULP apart";
}

// Float64 x w^T + bias on the CPU, and per element S = sum_k |x_k w_k| and |bias|.
struct LinearReference {
  at::Tensor value;      // double [M, N]
  at::Tensor magnitude;  // double [M, N]
  at::Tensor bias_abs;   // double [N] (zeros without a bias)
};
inline LinearReference linear_reference(const at::Tensor& x, const at::Tensor& w,
                                        const std::optional<at::Tensor>& bias) {
  const at::Tensor xd = x.cpu().to(at::kDouble), wd = w.cpu().to(at::kDouble);
  LinearReference r;
  r.value = at::matmul(xd, wd.t());
  r.magnitude = at::matmul(xd.abs(), wd.abs().t());
  r.bias_abs = at::zeros({w.size(0)}, at::kDouble);
  if (bias) {
    r.value = r.value + bias->cpu().to(at::kDouble);
    r.bias_abs = bias->cpu().to(at::kDouble).abs();
  }
  return r;
}

// Per element: output_bound of arithmetic `a` (linear in S and |y|: its values at three points
// give the map) plus the float64 reference's own error.
inline at::Tensor linear_bounds(const LinearReference& r, linear_bound::DotArithmetic a,
                                kernels::DType dtype, std::int64_t k, bool has_bias) {
  const double base = linear_bound::output_bound(a, dtype, k, has_bias, 0.0, 0.0);
  const double per_s = linear_bound::output_bound(a, dtype, k, has_bias, 1.0, 0.0) - base;
  const double per_y = linear_bound::output_bound(a, dtype, k, has_bias, 0.0, 1.0) - base;
  const double ref = linear_bound::float64_reference_error(k, 1.0, 0.0);
  const at::Tensor reference_error = (r.magnitude + r.bias_abs) * ref;
  // |y| <= |float64 value| + its error.
  return r.magnitude * per_s + (r.value.abs() + reference_error) * per_y + reference_error + base;
}

// Every element of got within bound of expected (both [M, N]); `worst` gets max |error| / bound.
inline ::testing::AssertionResult within_bound(const at::Tensor& got, const at::Tensor& expected,
                                               const at::Tensor& bound, const char* what,
                                               double* worst = nullptr) {
  const at::Tensor g = got.cpu().to(at::kDouble).reshape({-1});
  const at::Tensor e = expected.cpu().to(at::kDouble).reshape({-1});
  const at::Tensor b = bound.reshape({-1});
  const at::Tensor error = (g - e).abs();
  if (worst) *worst = error.numel() ? (error / b).max().item<double>() : 0.0;
  const at::Tensor over = error.gt(b).logical_or(error.isnan());
  const std::int64_t count = over.sum().item<std::int64_t>();
  if (count == 0) return ::testing::AssertionSuccess();
  const std::int64_t i = over.nonzero().view(-1)[0].item<std::int64_t>();
  return ::testing::AssertionFailure()
         << what << ": " << count << " of " << g.numel()
         << " exceed the bound; first at flat index " << i << ": got " << g[i].item<double>()
         << ", expected " << e[i].item<double>() << ", |error| " << error[i].item<double>()
         << " > bound " << b[i].item<double>();
}

}  // namespace samebits
