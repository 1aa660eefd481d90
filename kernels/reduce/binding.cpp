// The torch face of the invariant reduction: checks tensors, runs the CPU twin or the CUDA kernels,
// and registers torch.ops.samebits.sum / mean / sum_varlen. The only file of the family with torch.
#include "kernels/reduce/binding.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <limits>

#include "kernels/common/binding_support.h"
#include "kernels/reduce/invariant_reduce.h"

namespace samebits {
namespace {

using kernels::DType;

// Device workspace of `bytes` (none when 0: most shapes need none, and an allocation is host time).
struct Workspace {
  Workspace(std::size_t bytes, const at::TensorOptions& options)
      : tensor(bytes ? at::empty({static_cast<std::int64_t>(bytes)}, options.dtype(at::kByte))
                     : at::Tensor()),
        data(bytes ? tensor.data_ptr() : nullptr),
        bytes(bytes) {}
  at::Tensor tensor;
  void* data;
  std::size_t bytes;
};

}  // namespace

at::Tensor invariant_reduce(const at::Tensor& input, std::int64_t dim, bool mean) {
  TORCH_CHECK(input.dim() >= 1, "samebits.", mean ? "mean" : "sum", " needs at least one dim");
  dim = at::maybe_wrap_dim(dim, input.dim());
  const DType dtype = kernel_dtype(input, mean ? "mean" : "sum");
  // The reduced dim must be one index and the dims before and after it one index each; a copy is
  // taken otherwise (the values, and so the bits of the result, do not change).
  std::int64_t so = 0, si = 0;
  const at::Tensor x =
      collapsible(input, 0, dim, &so) && collapsible(input, dim + 1, input.dim(), &si)
          ? input
          : input.contiguous();
  collapsible(x, 0, dim, &so);
  collapsible(x, dim + 1, x.dim(), &si);
  std::vector<std::int64_t> out_shape;
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t d = 0; d < x.dim(); ++d) {
    if (d == dim) continue;
    out_shape.push_back(x.size(d));
    (d < dim ? outer : inner) *= x.size(d);
  }
  at::Tensor out = at::empty(out_shape, x.options().dtype(at::kFloat));
  // No elements (an empty tensor has no data pointer for the kernels): at::sum's 0 and at::mean's
  // NaN for every output, as the order header's empty sum would give.
  if (x.numel() == 0) return out.fill_(mean ? std::numeric_limits<float>::quiet_NaN() : 0.0f);
  kernels::ReduceProblem p;
  p.x = x.const_data_ptr();
  p.dtype = dtype;
  p.outer = outer;
  p.length = x.size(dim);
  p.inner = inner;
  p.stride_outer = so;
  p.stride_length = x.stride(dim);
  p.stride_inner = si;
  p.out = out.mutable_data_ptr<float>();
  p.out_stride_outer = inner;
  p.out_stride_inner = 1;
  p.mean = mean;
  if (x.is_cuda()) {
    const c10::cuda::CUDAGuard guard(x.device());
    const Workspace workspace(kernels::invariant_reduce_workspace_bytes(p), x.options());
    check_kernel_status(kernels::invariant_reduce_cuda(p, workspace.data, workspace.bytes,
                                                       at::cuda::getCurrentCUDAStream()),
                        "reduction");
  } else {
    TORCH_CHECK(x.is_cpu(), "samebits reductions run on CPU or CUDA tensors, not ", x.device());
    check_kernel_status(kernels::invariant_reduce_cpu(p), "reduction");
  }
  return out;
}

at::Tensor invariant_reduce_varlen(const at::Tensor& values, const at::Tensor& offsets, bool mean) {
  TORCH_CHECK(values.dim() == 1,
              "samebits.sum_varlen: values must be 1-D (rows packed end to end)");
  TORCH_CHECK(offsets.dim() == 1 && offsets.numel() >= 1 && offsets.scalar_type() == at::kLong,
              "samebits.sum_varlen: offsets must be a 1-D int64 tensor of rows + 1 entries");
  TORCH_CHECK(offsets.device() == values.device(),
              "samebits.sum_varlen: values and offsets on one device");
  const at::Tensor v = values.contiguous();
  const at::Tensor o = offsets.contiguous();
  const std::int64_t rows = o.numel() - 1;
  const std::int64_t max_length =
      checked_longest_row(o, v.numel(), "values.numel()", -1, "sum_varlen");
  at::Tensor out = at::empty({rows}, v.options().dtype(at::kFloat));
  if (v.numel() == 0) return out.fill_(mean ? std::numeric_limits<float>::quiet_NaN() : 0.0f);
  kernels::VarlenReduceProblem p;
  p.values = v.const_data_ptr();
  p.dtype = kernel_dtype(v, "sum_varlen");
  p.offsets = o.const_data_ptr<std::int64_t>();
  p.rows = rows;
  p.max_length = max_length;
  p.out = out.mutable_data_ptr<float>();
  p.mean = mean;
  if (v.is_cuda()) {
    const c10::cuda::CUDAGuard guard(v.device());
    const Workspace workspace(kernels::invariant_reduce_varlen_workspace_bytes(p), v.options());
    check_kernel_status(kernels::invariant_reduce_varlen_cuda(p, workspace.data, workspace.bytes,
                                                              at::cuda::getCurrentCUDAStream()),
                        "varlen reduction");
  } else {
    check_kernel_status(kernels::invariant_reduce_varlen_cpu(p), "varlen reduction");
  }
  return out;
}

}  // namespace samebits

namespace {

at::Tensor sum_op(const at::Tensor& x, std::int64_t dim) {
  return samebits::invariant_reduce(x, dim, false);
}
at::Tensor mean_op(const at::Tensor& x, std::int64_t dim) {
  return samebits::invariant_reduce(x, dim, true);
}
at::Tensor sum_varlen_op(const at::Tensor& values, const at::Tensor& offsets) {
  return samebits::invariant_reduce_varlen(values, offsets, false);
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(samebits, m) {
  m.def("sum(Tensor x, int dim) -> Tensor");
  m.def("mean(Tensor x, int dim) -> Tensor");
  m.def("sum_varlen(Tensor values, Tensor offsets) -> Tensor");
}

TORCH_LIBRARY_IMPL(samebits, CPU, m) {
  m.impl("sum", sum_op);
  m.impl("mean", mean_op);
  m.impl("sum_varlen", sum_varlen_op);
}

TORCH_LIBRARY_IMPL(samebits, CUDA, m) {
  m.impl("sum", sum_op);
  m.impl("mean", mean_op);
  m.impl("sum_varlen", sum_varlen_op);
}
