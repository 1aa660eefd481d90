// The torch face of samebits.linear / samebits.matmul: checks tensors (naming the argument and
// what it accepts), stages rows the kernel cannot read as they are, runs the CPU twin or CUDA.
#include "kernels/linear/binding.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <cstdint>
#include <vector>

#include "kernels/common/binding_support.h"
#include "kernels/linear/invariant_linear.h"

namespace samebits {
namespace {

// A [lines, K] operand as the kernels read it: rows with adjacent elements. On CUDA with 16-bit
// inputs also 16-byte aligned with a row stride of a multiple of 8 elements (16-byte copies); a
// tensor that is not is copied to a buffer that is (a copy changes no value, so no bit).
at::Tensor readable_rows(const at::Tensor& t, bool sixteen_byte_rows) {
  at::Tensor rows = t;
  if ((rows.size(1) > 1 && rows.stride(1) != 1) ||
      (rows.size(0) > 1 && rows.stride(0) < rows.size(1)))  // overlapping rows (an expand)
    rows = rows.contiguous();
  if (!sixteen_byte_rows || rows.size(0) == 0 || rows.size(1) == 0) return rows;
  const bool aligned = reinterpret_cast<std::uintptr_t>(rows.const_data_ptr()) % 16 == 0 &&
                       (rows.size(0) == 1 || rows.stride(0) % 8 == 0);
  if (aligned) return rows;
  const std::int64_t k = rows.size(1), padded = (k + 7) / 8 * 8;
  at::Tensor staged = at::empty({rows.size(0), padded}, rows.options());  // the allocator aligns
  staged.narrow(1, 0, k).copy_(rows);
  return staged.narrow(1, 0, k);
}

// The row stride the kernel walks: a single row's stride is never used, so one that suits every
// path (>= K, a multiple of 8) stands in for whatever torch gives a size-1 dim.
std::int64_t row_stride(const at::Tensor& rows) {
  return rows.size(0) == 1 ? (rows.size(1) + 7) / 8 * 8 : rows.stride(0);
}

}  // namespace

at::Tensor invariant_linear(const at::Tensor& x, const at::Tensor& w,
                            const std::optional<at::Tensor>& bias) {
  TORCH_CHECK(x.dim() >= 1, "samebits.linear: x must be [..., K] (at least 1-D), got a 0-d tensor");
  TORCH_CHECK(w.dim() == 2, "samebits.linear: w must be [N, K], got ", w.sizes());
  const std::int64_t k = x.size(-1), n = w.size(0);
  TORCH_CHECK(w.size(1) == k, "samebits.linear: w must be [N, K] with K = x.size(-1) = ", k,
              ", got ", w.sizes());
  const kernels::DType dtype = kernel_dtype(x, "linear");
  TORCH_CHECK(w.scalar_type() == x.scalar_type(), "samebits.linear: w must have x's dtype ",
              x.scalar_type(), ", got ", w.scalar_type());
  TORCH_CHECK(w.device() == x.device(), "samebits.linear: w must be on x's device ", x.device(),
              ", got ", w.device());
  if (bias) {
    TORCH_CHECK(bias->dim() == 1 && bias->size(0) == n,
                "samebits.linear: bias must be [N] with N = w.size(0) = ", n, ", got ",
                bias->sizes());
    TORCH_CHECK(bias->scalar_type() == x.scalar_type(),
                "samebits.linear: bias must have x's dtype ", x.scalar_type(), ", got ",
                bias->scalar_type());
    TORCH_CHECK(bias->device() == x.device(), "samebits.linear: bias must be on x's device ",
                x.device(), ", got ", bias->device());
  }
  TORCH_CHECK(x.is_cpu() || x.is_cuda(), "samebits.linear runs on CPU or CUDA tensors, not ",
              x.device());
  std::vector<std::int64_t> out_shape(x.sizes().begin(), x.sizes().end() - 1);
  out_shape.push_back(n);
  const std::int64_t m = c10::multiply_integers(out_shape.begin(), out_shape.end() - 1);
  at::Tensor out = at::empty({m, n}, x.options());
  if (m == 0 || n == 0) return out.view(out_shape);

  const bool cuda = x.is_cuda();
  const bool sixteen = cuda && dtype != kernels::DType::f32;
  const at::Tensor x_rows = readable_rows(x.reshape({m, k}), sixteen);
  const at::Tensor w_rows = readable_rows(w, sixteen);
  const at::Tensor b = bias ? bias->contiguous() : at::Tensor();
  kernels::LinearProblem p;
  p.dtype = dtype;
  p.rows = m;
  p.n = n;
  p.k = k;
  p.x = x_rows.const_data_ptr();
  p.x_row_stride = row_stride(x_rows);
  p.w = w_rows.const_data_ptr();
  p.w_row_stride = row_stride(w_rows);
  p.bias = bias ? b.const_data_ptr() : nullptr;
  p.out = out.mutable_data_ptr();
  TORCH_CHECK(kernels::linear_problem_valid(p), "samebits.linear: sizes out of range: M = ", m,
              ", N = ", n, " (at most ", 65535LL * 64, "), K = ", k);
  if (cuda) {
    const c10::cuda::CUDAGuard guard(x.device());
    check_kernel_status(kernels::invariant_linear_cuda(p, at::cuda::getCurrentCUDAStream()),
                        "linear");
  } else {
    check_kernel_status(kernels::invariant_linear_cpu(p), "linear");
  }
  return out.view(out_shape);
}

at::Tensor invariant_matmul(const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK(a.dim() >= 2, "samebits.matmul: a must be [..., K] with at least 2 dims, got ",
              a.sizes());
  TORCH_CHECK(b.dim() == 2, "samebits.matmul: b must be [K, N], got ", b.sizes());
  TORCH_CHECK(b.size(0) == a.size(-1),
              "samebits.matmul: b must be [K, N] with K = a.size(-1) = ", a.size(-1), ", got ",
              b.sizes());
  // The kernel reads w [N, K] rows: b's transpose, copied contiguous (values, not bits, move).
  return invariant_linear(a, b.t().contiguous());
}

}  // namespace samebits

namespace {

at::Tensor linear_op(const at::Tensor& x, const at::Tensor& w,
                     const std::optional<at::Tensor>& bias) {
  return samebits::invariant_linear(x, w, bias);
}

at::Tensor matmul_op(const at::Tensor& a, const at::Tensor& b) {
  return samebits::invariant_matmul(a, b);
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(samebits, m) {
  m.def("linear(Tensor x, Tensor w, Tensor? bias=None) -> Tensor");
  m.def("matmul(Tensor a, Tensor b) -> Tensor");
}

TORCH_LIBRARY_IMPL(samebits, CPU, m) {
  m.impl("linear", linear_op);
  m.impl("matmul", matmul_op);
}

TORCH_LIBRARY_IMPL(samebits, CUDA, m) {
  m.impl("linear", linear_op);
  m.impl("matmul", matmul_op);
}
