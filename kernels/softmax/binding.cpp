// The torch face of the invariant softmax: checks tensors, runs the CPU twin or the CUDA kernel,
// and registers torch.ops.samebits.softmax / log_softmax. The only file of the family with torch.
#include "kernels/softmax/binding.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include "kernels/common/binding_support.h"
#include "kernels/softmax/invariant_softmax.h"

namespace samebits {

at::Tensor invariant_softmax(const at::Tensor& input, std::optional<at::ScalarType> dtype,
                             bool log) {
  const char* op = log ? "log_softmax" : "softmax";
  TORCH_CHECK(input.dim() >= 1, "samebits.", op,
              " needs x of at least one dim (it normalises the last), got a 0-dim tensor");
  const kernels::DType in_dtype = kernel_dtype(input, op);
  TORCH_CHECK(!dtype || *dtype == at::kFloat, "samebits.", op,
              ": dtype must be None (the result in x's dtype) or torch.float32, got ", *dtype);
  TORCH_CHECK(input.is_cpu() || input.is_cuda(), "samebits.", op,
              " runs on CPU or CUDA tensors, not ", input.device());
  const at::ScalarType out_type = dtype ? at::kFloat : input.scalar_type();
  at::Tensor out = at::empty(input.sizes(), input.options().dtype(out_type));
  if (input.numel() == 0) return out;
  // Rows must be unit-stride and their starts one index apart; a copy is taken otherwise (the
  // values, and so the bits of the result, do not change). Any row alignment is taken as is.
  const std::int64_t last = input.dim() - 1;
  std::int64_t row_stride = 0;
  const bool usable = (input.size(last) == 1 || input.stride(last) == 1) &&
                      collapsible(input, 0, last, &row_stride);
  const at::Tensor x = usable ? input : input.contiguous();
  collapsible(x, 0, last, &row_stride);
  kernels::SoftmaxProblem p;
  p.x = x.const_data_ptr();
  p.dtype = in_dtype;
  p.length = x.size(last);
  p.rows = x.numel() / p.length;
  p.row_stride = row_stride;
  p.out = out.mutable_data_ptr();
  p.out_dtype = dtype ? kernels::DType::f32 : in_dtype;
  p.out_row_stride = p.length;
  p.log = log;
  if (x.is_cuda()) {
    const c10::cuda::CUDAGuard guard(x.device());
    check_kernel_status(kernels::invariant_softmax_cuda(p, at::cuda::getCurrentCUDAStream()), op);
  } else {
    check_kernel_status(kernels::invariant_softmax_cpu(p), op);
  }
  return out;
}

}  // namespace samebits

namespace {

at::Tensor softmax_op(const at::Tensor& x, std::optional<at::ScalarType> dtype) {
  return samebits::invariant_softmax(x, dtype, false);
}
at::Tensor log_softmax_op(const at::Tensor& x, std::optional<at::ScalarType> dtype) {
  return samebits::invariant_softmax(x, dtype, true);
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(samebits, m) {
  m.def("softmax(Tensor x, ScalarType? dtype=None) -> Tensor");
  m.def("log_softmax(Tensor x, ScalarType? dtype=None) -> Tensor");
}

TORCH_LIBRARY_IMPL(samebits, CPU, m) {
  m.impl("softmax", softmax_op);
  m.impl("log_softmax", log_softmax_op);
}

TORCH_LIBRARY_IMPL(samebits, CUDA, m) {
  m.impl("softmax", softmax_op);
  m.impl("log_softmax", log_softmax_op);
}
