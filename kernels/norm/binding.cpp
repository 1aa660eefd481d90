// The torch face of the invariant RMSNorm: checks the tensors, runs the CPU twin (rows spread over
// threads) or the CUDA kernel, registers torch.ops.samebits.rms_norm and add_rms_norm.
#include "kernels/norm/binding.h"

#include <ATen/Parallel.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <cmath>

#include "kernels/common/binding_support.h"
#include "kernels/norm/invariant_norm.h"

namespace samebits {
namespace {

// x's rows as [rows, D] with a row stride: x itself where its leading dims walk as one index and
// its last dim is contiguous, else a contiguous copy (the values, so the bits, are the same).
at::Tensor as_rows(const at::Tensor& x, std::int64_t* row_stride) {
  std::int64_t stride = 0;
  if (x.stride(-1) == 1 || x.size(-1) == 1) {
    const std::int64_t rows = x.numel() / std::max<std::int64_t>(1, x.size(-1));
    // Rows that overlap (an expanded x, stride below D) are copied: the kernel writes by row.
    if (collapsible(x, 0, x.dim() - 1, &stride) && (rows <= 1 || stride >= x.size(-1))) {
      *row_stride = rows <= 1 ? x.size(-1) : stride;
      return x;
    }
  }
  *row_stride = x.size(-1);
  return x.contiguous();
}

void check_args(const char* op, const at::Tensor& x, const at::Tensor& w, double eps) {
  TORCH_CHECK(x.dim() >= 1, "samebits.", op, ": x must have at least one dim (rows are its last)");
  TORCH_CHECK(x.size(-1) >= 1, "samebits.", op,
              ": the normalised dim (x's last) must not be empty");
  TORCH_CHECK(w.dim() == 1 && w.size(0) == x.size(-1), "samebits.", op, ": w must be [D] = [",
              x.size(-1), "], got ", w.sizes());
  TORCH_CHECK(w.scalar_type() == x.scalar_type(), "samebits.", op, ": w must have x's dtype ",
              x.scalar_type(), ", got ", w.scalar_type());
  TORCH_CHECK(w.device() == x.device(), "samebits.", op, ": w must be on x's device ", x.device(),
              ", got ", w.device());
  TORCH_CHECK(x.is_cpu() || x.is_cuda(), "samebits.", op, " runs on CPU or CUDA tensors, not ",
              x.device());
  TORCH_CHECK(std::isfinite(eps) && eps >= 0, "samebits.", op,
              ": eps must be finite and >= 0, got ", eps);
  kernel_dtype(x, op);
}

void run(kernels::NormProblem& p, const at::Tensor& x, const char* op) {
  if (p.rows == 0) return;
  if (x.is_cuda()) {
    const c10::cuda::CUDAGuard guard(x.device());
    check_kernel_status(kernels::invariant_norm_cuda(p, at::cuda::getCurrentCUDAStream()), op);
  } else {
    // Rows in ranges over threads; each row is one call of the same loop, wherever it runs.
    at::parallel_for(0, p.rows, std::max<std::int64_t>(1, 16384 / p.d),
                     [&](std::int64_t begin, std::int64_t end) {
                       check_kernel_status(kernels::invariant_norm_cpu(p, begin, end), op);
                     });
  }
}

}  // namespace

at::Tensor invariant_rms_norm(const at::Tensor& x_in, const at::Tensor& w_in, double eps) {
  check_args("rms_norm", x_in, w_in, eps);
  std::int64_t stride = 0;
  const at::Tensor x = as_rows(x_in, &stride);
  const at::Tensor w = w_in.contiguous();
  at::Tensor y =
      at::empty(x_in.sizes(), x_in.options().memory_format(at::MemoryFormat::Contiguous));
  kernels::NormProblem p;
  p.dtype = kernel_dtype(x, "rms_norm");
  p.d = x.size(-1);
  p.rows = x.numel() / p.d;
  p.x = x.const_data_ptr();
  p.x_stride = stride;
  p.w = w.const_data_ptr();
  p.eps = static_cast<float>(eps);
  p.y = y.mutable_data_ptr();
  run(p, x, "rms_norm");
  return y;
}

std::pair<at::Tensor, at::Tensor> invariant_add_rms_norm(const at::Tensor& x_in,
                                                         const at::Tensor& r_in,
                                                         const at::Tensor& w_in, double eps) {
  check_args("add_rms_norm", x_in, w_in, eps);
  TORCH_CHECK(r_in.sizes() == x_in.sizes(), "samebits.add_rms_norm: residual must have x's shape ",
              x_in.sizes(), ", got ", r_in.sizes());
  TORCH_CHECK(r_in.scalar_type() == x_in.scalar_type(),
              "samebits.add_rms_norm: residual must have x's dtype ", x_in.scalar_type(), ", got ",
              r_in.scalar_type());
  TORCH_CHECK(r_in.device() == x_in.device(),
              "samebits.add_rms_norm: residual must be on x's device ", x_in.device(), ", got ",
              r_in.device());
  std::int64_t xs = 0, rs = 0;
  const at::Tensor x = as_rows(x_in, &xs);
  const at::Tensor r = as_rows(r_in, &rs);
  const at::Tensor w = w_in.contiguous();
  const auto options = x_in.options().memory_format(at::MemoryFormat::Contiguous);
  at::Tensor y = at::empty(x_in.sizes(), options), h = at::empty(x_in.sizes(), options);
  kernels::NormProblem p;
  p.dtype = kernel_dtype(x, "add_rms_norm");
  p.d = x.size(-1);
  p.rows = x.numel() / p.d;
  p.x = x.const_data_ptr();
  p.x_stride = xs;
  p.residual = r.const_data_ptr();
  p.residual_stride = rs;
  p.w = w.const_data_ptr();
  p.eps = static_cast<float>(eps);
  p.y = y.mutable_data_ptr();
  p.h = h.mutable_data_ptr();
  run(p, x, "add_rms_norm");
  return {y, h};
}

}  // namespace samebits

namespace {

at::Tensor rms_norm_op(const at::Tensor& x, const at::Tensor& w, double eps) {
  return samebits::invariant_rms_norm(x, w, eps);
}
std::tuple<at::Tensor, at::Tensor> add_rms_norm_op(const at::Tensor& x, const at::Tensor& r,
                                                   const at::Tensor& w, double eps) {
  auto [y, h] = samebits::invariant_add_rms_norm(x, r, w, eps);
  return {y, h};
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(samebits, m) {
  m.def("rms_norm(Tensor x, Tensor w, float eps) -> Tensor");
  m.def("add_rms_norm(Tensor x, Tensor residual, Tensor w, float eps) -> (Tensor, Tensor)");
}

TORCH_LIBRARY_IMPL(samebits, CPU, m) {
  m.impl("rms_norm", rms_norm_op);
  m.impl("add_rms_norm", add_rms_norm_op);
}

TORCH_LIBRARY_IMPL(samebits, CUDA, m) {
  m.impl("rms_norm", rms_norm_op);
  m.impl("add_rms_norm", add_rms_norm_op);
}
