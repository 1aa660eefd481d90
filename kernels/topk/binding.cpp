// The torch face of the batched top-k: checks tensors, runs the CPU twin or the CUDA kernels, and
// registers torch.ops.samebits.topk / topk_varlen. The only file of the family with torch.
#include "kernels/topk/binding.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <algorithm>
#include <limits>

#include "kernels/common/binding_support.h"
#include "kernels/topk/invariant_topk.h"

namespace samebits {
namespace {

using kernels::TopkAlgorithm;

TopkAlgorithm parse_algorithm(const std::string& name) {
  if (name == "auto") return TopkAlgorithm::automatic;
  if (name == "radix_select") return TopkAlgorithm::radix_select;
  if (name == "warp_select") return TopkAlgorithm::warp_select;
  if (name == "split_select") return TopkAlgorithm::split_select;
  TORCH_CHECK(false, "samebits.topk: unknown algorithm \"", name, "\" (accepted: ", kTopkAlgorithms,
              ")");
}

// Checks what the chosen kernel can take, naming the limit, before anything runs.
void check_limits(const kernels::TopkProblem& p, const char* op) {
  TORCH_CHECK(p.k >= 1, "samebits.", op, ": k must be at least 1, got ", p.k);
  TORCH_CHECK(p.max_length <= kernels::kMaxRowLength, "samebits.", op, ": rows longer than ",
              kernels::kMaxRowLength, " (", p.max_length, ") are not supported");
  const TopkAlgorithm chosen = kernels::choose_topk_algorithm(p);
  if (chosen == TopkAlgorithm::warp_select) {
    TORCH_CHECK(p.k <= kernels::kWarpSelectMaxK && p.max_length <= kernels::kWarpSelectMaxLength,
                "samebits.", op, ": warp_select takes k <= ", kernels::kWarpSelectMaxK,
                " and rows of at most ", kernels::kWarpSelectMaxLength, " elements, got k = ", p.k,
                " and rows up to ", p.max_length);
  } else if (chosen == TopkAlgorithm::split_select) {
    TORCH_CHECK(p.k <= kernels::kSplitSelectMaxK && p.rows <= kernels::kSplitSelectMaxRows,
                "samebits.", op, ": split_select takes k <= ", kernels::kSplitSelectMaxK,
                " and at most ", kernels::kSplitSelectMaxRows, " rows, got k = ", p.k, " and ",
                p.rows, " rows");
  } else {
    TORCH_CHECK(p.k <= kernels::kRadixSelectMaxK, "samebits.", op, ": k = ", p.k,
                " exceeds radix_select's limit of ", kernels::kRadixSelectMaxK);
  }
}

// Fills what every top-k call shares (input, k, outputs of out_shape, algorithm) into `p`, whose
// row layout the caller has set, and runs the CPU twin or the CUDA kernels on x's device.
std::tuple<at::Tensor, at::Tensor> run(kernels::TopkProblem p, const at::Tensor& x, std::int64_t k,
                                       at::IntArrayRef out_shape, const std::string& algorithm,
                                       const char* op) {
  at::Tensor values = at::empty(out_shape, x.options());
  at::Tensor indices = at::empty(out_shape, x.options().dtype(at::kLong));
  p.values = x.const_data_ptr();
  p.dtype = kernel_dtype(x, op);
  p.k = k;
  p.out_values = values.mutable_data_ptr();
  p.out_indices = indices.mutable_data_ptr<std::int64_t>();
  p.algorithm = parse_algorithm(algorithm);
  check_limits(p, op);
  // No rows: nothing to select. Rows, all empty (varlen over no values): every slot is empty
  // (-inf, index -1), as the kernels write slots past a row's length; no data pointer to read.
  // (CUDA offsets are the kernels' to judge: a row they flag is marked, whatever values holds.)
  if (p.rows == 0) return {values, indices};
  if (x.numel() == 0 && !(p.offsets && x.is_cuda())) {
    values.fill_(-std::numeric_limits<double>::infinity());
    indices.fill_(-1);
    return {values, indices};
  }
  if (x.is_cuda()) {
    const c10::cuda::CUDAGuard guard(x.device());
    // split_select's workspace, where it runs (asked for, or few long rows under "auto").
    at::Tensor workspace;
    if (p.algorithm == TopkAlgorithm::split_select ||
        (p.algorithm == TopkAlgorithm::automatic && kernels::topk_prefers_split(p))) {
      const std::int64_t bytes = kernels::topk_split_workspace_bytes(p);
      if (bytes > 0) {
        workspace = at::empty({bytes}, x.options().dtype(at::kByte));
        p.workspace = workspace.mutable_data_ptr();
        p.workspace_bytes = bytes;
      }
    }
    check_kernel_status(kernels::invariant_topk_cuda(p, at::cuda::getCurrentCUDAStream()), op);
  } else {
    TORCH_CHECK(x.is_cpu(), "samebits.", op, " runs on CPU or CUDA tensors, not ", x.device());
    check_kernel_status(kernels::invariant_topk_cpu(p), op);
  }
  return {values, indices};
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> invariant_topk(const at::Tensor& input, std::int64_t k,
                                                  const std::string& algorithm) {
  TORCH_CHECK(input.dim() >= 1, "samebits.topk needs at least one dim");
  const std::int64_t n = input.size(-1);
  TORCH_CHECK(k >= 1 && k <= n, "samebits.topk: k must be in [1, ", n, "] (the last dim), got ", k);
  // Rows must be contiguous and evenly spaced; a copy keeps every value (and so the selection).
  at::Tensor x = input.stride(-1) == 1 ? input : input.contiguous();
  // The dims before the last must walk as one index (row stride); else a contiguous copy.
  std::int64_t row_stride = 0;
  if (!collapsible(x, 0, x.dim() - 1, &row_stride)) {
    x = x.contiguous();
    collapsible(x, 0, x.dim() - 1, &row_stride);
  }
  const std::int64_t rows = x.numel() / n;
  if (rows == 1) row_stride = n;  // no leading dim longer than 1: any stride reads the one row
  std::vector<std::int64_t> out_shape = x.sizes().vec();
  out_shape.back() = k;
  kernels::TopkProblem p;
  p.rows = rows;
  p.row_stride = row_stride;
  p.length = n;
  p.max_length = n;
  return run(p, x, k, out_shape, algorithm, "topk");
}

std::tuple<at::Tensor, at::Tensor> invariant_topk_varlen(
    const at::Tensor& values, const at::Tensor& offsets, std::int64_t k, std::int64_t max_length,
    const std::string& algorithm, bool /*unsafe: a no-op, kept for old callers*/,
    const std::optional<at::Tensor>& status) {
  TORCH_CHECK(values.dim() == 1,
              "samebits.topk_varlen: values must be 1-D (rows packed end to end)");
  TORCH_CHECK(offsets.dim() == 1 && offsets.numel() >= 1 && offsets.scalar_type() == at::kLong,
              "samebits.topk_varlen: offsets must be a 1-D int64 tensor of rows + 1 entries");
  TORCH_CHECK(offsets.device() == values.device(),
              "samebits.topk_varlen: values and offsets must be on one device");
  const at::Tensor v = values.contiguous();
  const at::Tensor o = offsets.contiguous();
  const std::int64_t rows = o.numel() - 1;
  kernels::TopkProblem p;
  p.rows = rows;
  p.offsets = o.const_data_ptr<std::int64_t>();
  // No device-to-host copy on CUDA (binding_support.h): the bound picks the algorithm and sizes
  // the launch; the kernels guard every row against it and against values.numel().
  p.max_length = longest_row_bound(o, v.numel(), "values.numel()", max_length,
                                   kernels::kMaxRowLength, "topk_varlen");
  p.total = v.numel();
  p.status = status_word(status, v, "topk_varlen");
  return run(p, v, k, {rows, k}, algorithm, "topk_varlen");
}

}  // namespace samebits

namespace {

std::tuple<at::Tensor, at::Tensor> topk_op(const at::Tensor& x, std::int64_t k,
                                           c10::string_view algorithm) {
  return samebits::invariant_topk(x, k, std::string(algorithm));
}
std::tuple<at::Tensor, at::Tensor> topk_varlen_op(const at::Tensor& values,
                                                  const at::Tensor& offsets, std::int64_t k,
                                                  std::int64_t max_length,
                                                  c10::string_view algorithm, bool unsafe,
                                                  const std::optional<at::Tensor>& status) {
  return samebits::invariant_topk_varlen(values, offsets, k, max_length, std::string(algorithm),
                                         unsafe, status);
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(samebits, m) {
  m.def("topk(Tensor x, int k, str algorithm=\"auto\") -> (Tensor values, Tensor indices)");
  m.def(
      "topk_varlen(Tensor values, Tensor offsets, int k, int max_length=-1, "
      "str algorithm=\"auto\", bool unsafe=False, Tensor(a!)? status=None) -> "
      "(Tensor values, Tensor indices)");
}

TORCH_LIBRARY_IMPL(samebits, CPU, m) {
  m.impl("topk", topk_op);
  m.impl("topk_varlen", topk_varlen_op);
}

TORCH_LIBRARY_IMPL(samebits, CUDA, m) {
  m.impl("topk", topk_op);
  m.impl("topk_varlen", topk_varlen_op);
}
