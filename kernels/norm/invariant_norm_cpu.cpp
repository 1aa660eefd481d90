// The CPU twin of the invariant RMSNorm: each row with kLanes partial sums over the same chunks,
// the same tree and the same final operations as the CUDA kernel (invariant_norm_order.h).
#include <array>

#include "kernels/norm/invariant_norm.h"
#include "kernels/norm/invariant_norm_order.h"

namespace samebits::kernels {
namespace {

namespace order = norm_order;

template <DType T>
void norm_rows(const NormProblem& p, std::int64_t begin, std::int64_t end) {
  using E = order::Elem<T>;
  using S = typename E::type;
  const S* w = static_cast<const S*>(p.w);
  std::array<float, order::kLanes> partial;
  for (std::int64_t row = begin; row < end; ++row) {
    const S* x = static_cast<const S*>(p.x) + row * p.x_stride;
    S* y = static_cast<S*>(p.y) + row * p.d;
    const S* v = x;  // the values normalised: x, or h = round(x + r) for add_rms_norm
    if (p.residual != nullptr) {
      const S* r = static_cast<const S*>(p.residual) + row * p.residual_stride;
      S* h = static_cast<S*>(p.h) + row * p.d;
      for (std::int64_t i = 0; i < p.d; ++i) h[i] = E::narrow(E::widen(x[i]) + E::widen(r[i]));
      v = h;
    }
    partial.fill(0.0f);
    // Element i goes to its lane in ascending i, which is each lane's ascending order.
    for (std::int64_t i = 0; i < p.d; ++i) {
      const int lane = order::lane_of(i);
      partial[lane] = order::square_add(partial[lane], E::widen(v[i]));
    }
    for (int s = order::kLanes / 2; s >= 1; s /= 2) {
      for (int t = 0; t < s; ++t) partial[t] = partial[t] + partial[t + s];
    }
    const float rstd = order::finish_rstd(partial[0], p.d, p.eps);
    for (std::int64_t i = 0; i < p.d; ++i)
      y[i] = E::narrow(order::scale(E::widen(v[i]), rstd, E::widen(w[i])));
  }
}

}  // namespace

Status invariant_norm_cpu(const NormProblem& p, std::int64_t row_begin, std::int64_t row_end) {
  if (p.rows < 0 || p.d < 1 || row_begin < 0 || row_end > p.rows || row_begin > row_end)
    return Status::invalid_argument;
  if (row_begin == row_end) return Status::ok;
  if (p.x == nullptr || p.w == nullptr || p.y == nullptr) return Status::invalid_argument;
  if (p.residual != nullptr && p.h == nullptr) return Status::invalid_argument;
  switch (p.dtype) {
    case DType::f32: norm_rows<DType::f32>(p, row_begin, row_end); return Status::ok;
    case DType::bf16: norm_rows<DType::bf16>(p, row_begin, row_end); return Status::ok;
    case DType::f16: norm_rows<DType::f16>(p, row_begin, row_end); return Status::ok;
  }
  return Status::unsupported_dtype;
}

}  // namespace samebits::kernels
