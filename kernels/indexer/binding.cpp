// The torch face of the batched indexer: checks tensors (naming the argument and what it
// accepts), runs the CPU twin or the CUDA kernels, registers torch.ops.samebits.indexer.
#include "kernels/indexer/binding.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <algorithm>
#include <string>

#include "kernels/common/binding_support.h"
#include "kernels/indexer/invariant_indexer.h"
#include "kernels/topk/invariant_topk.h"

namespace samebits {
namespace {

kernels::IndexerInput indexer_input(const at::Tensor& q) {
  if (q.scalar_type() == at::kBFloat16) return kernels::IndexerInput::bf16;
  if (q.scalar_type() == at::kFloat8_e4m3fn) return kernels::IndexerInput::f8_e4m3;
  TORCH_CHECK(false, "samebits.indexer: q and keys take bfloat16 or float8_e4m3fn, not ",
              q.scalar_type());
}

// A tensor the kernel reads with 4-element loads: contiguous, and 4-element aligned.
at::Tensor aligned_contiguous(const at::Tensor& x, std::size_t element_bytes) {
  at::Tensor c = x.contiguous();
  if (reinterpret_cast<std::uintptr_t>(c.const_data_ptr()) % (4 * element_bytes) != 0) {
    c = c.clone();
  }
  return c;
}

const float* optional_scale(const std::optional<at::Tensor>& scale, const char* name,
                            const at::Tensor& q, std::int64_t items, at::Tensor* keep) {
  if (!scale) return nullptr;
  TORCH_CHECK(scale->scalar_type() == at::kFloat && scale->dim() == 1 && scale->numel() == items &&
                  scale->device() == q.device(),
              "samebits.indexer: ", name,
              " must be a float32 [B] tensor on q's device (B = ", items, "), got ",
              scale->scalar_type(), " ", scale->sizes(), " on ", scale->device());
  *keep = scale->contiguous();
  return keep->const_data_ptr<float>();
}

}  // namespace

IndexerOutputs invariant_indexer(const at::Tensor& q_in, const at::Tensor& keys_in,
                                 const at::Tensor& offsets_in, const at::Tensor& weights_in,
                                 std::int64_t k, std::int64_t max_length,
                                 const std::optional<at::Tensor>& q_scale,
                                 const std::optional<at::Tensor>& k_scale,
                                 bool /*unsafe: a no-op, kept for old callers*/,
                                 kernels::IndexerAlgorithm algorithm,
                                 const std::optional<at::Tensor>& status) {
  TORCH_CHECK(q_in.dim() == 3, "samebits.indexer: q must be [B, H, d], got ", q_in.sizes());
  TORCH_CHECK(keys_in.dim() == 2 && keys_in.size(1) == q_in.size(2),
              "samebits.indexer: keys must be [total, d] with d = ", q_in.size(2), ", got ",
              keys_in.sizes());
  TORCH_CHECK(keys_in.scalar_type() == q_in.scalar_type(),
              "samebits.indexer: q and keys must share a dtype, got ", q_in.scalar_type(), " and ",
              keys_in.scalar_type());
  const kernels::IndexerInput input = indexer_input(q_in);
  const std::int64_t items = q_in.size(0), heads = q_in.size(1), head_dim = q_in.size(2);
  TORCH_CHECK(kernels::indexer_heads_supported(heads),
              "samebits.indexer: H (q.size(1)) must be 4, 8, 16, 32 or 64, got ", heads);
  TORCH_CHECK(head_dim >= 4 && head_dim % 4 == 0 && head_dim <= kernels::kIndexerMaxHeadDim,
              "samebits.indexer: d must be a multiple of 4 in [4, ", kernels::kIndexerMaxHeadDim,
              "], got ", head_dim);
  TORCH_CHECK(k >= 1 && k <= kernels::kRadixSelectMaxK, "samebits.indexer: k must be in [1, ",
              kernels::kRadixSelectMaxK, "], got ", k);
  TORCH_CHECK(items <= 65535, "samebits.indexer: at most 65535 items per call, got ", items);
  TORCH_CHECK(weights_in.scalar_type() == at::kFloat && weights_in.dim() == 2 &&
                  weights_in.size(0) == items && weights_in.size(1) == heads,
              "samebits.indexer: weights must be float32 [B, H] = [", items, ", ", heads, "], got ",
              weights_in.scalar_type(), " ", weights_in.sizes());
  TORCH_CHECK(offsets_in.scalar_type() == at::kLong && offsets_in.dim() == 1 &&
                  offsets_in.numel() == items + 1,
              "samebits.indexer: offsets must be int64 [B + 1], got ", offsets_in.scalar_type(),
              " ", offsets_in.sizes());
  for (const at::Tensor* t : {&keys_in, &offsets_in, &weights_in}) {
    TORCH_CHECK(t->device() == q_in.device(),
                "samebits.indexer: every tensor must be on q's device ", q_in.device());
  }
  TORCH_CHECK(input == kernels::IndexerInput::f8_e4m3 || (!q_scale && !k_scale),
              "samebits.indexer: q_scale and k_scale go with float8_e4m3fn inputs only");
  const std::size_t element_bytes = input == kernels::IndexerInput::bf16 ? 2 : 1;
  const at::Tensor q = aligned_contiguous(q_in, element_bytes);
  const at::Tensor keys = aligned_contiguous(keys_in, element_bytes);
  const at::Tensor offsets = offsets_in.contiguous();
  const at::Tensor weights = weights_in.contiguous();
  // As topk_varlen's: no device-to-host copy on CUDA; the kernels guard every item.
  max_length = longest_row_bound(offsets, keys.size(0), "keys.size(0)", max_length,
                                 kernels::kMaxRowLength, "indexer");
  IndexerOutputs out;
  out.scores = at::empty({keys.size(0)}, keys.options().dtype(at::kFloat));
  out.top_values = at::empty({items, k}, keys.options().dtype(at::kFloat));
  out.top_indices = at::empty({items, k}, keys.options().dtype(at::kLong));
  at::Tensor q_scale_kept, k_scale_kept;
  kernels::IndexerProblem p;
  p.input = input;
  p.items = items;
  p.heads = heads;
  p.head_dim = head_dim;
  p.q = q.const_data_ptr();
  p.keys = keys.const_data_ptr();
  p.offsets = offsets.const_data_ptr<std::int64_t>();
  p.weights = weights.const_data_ptr<float>();
  p.q_scale = optional_scale(q_scale, "q_scale", q, items, &q_scale_kept);
  p.k_scale = optional_scale(k_scale, "k_scale", q, items, &k_scale_kept);
  p.max_length = max_length;
  p.total_keys = keys.size(0);
  p.status = status_word(status, q, "indexer");
  p.k = k;
  p.algorithm = algorithm;
  p.scores = out.scores.mutable_data_ptr<float>();
  p.top_values = out.top_values.mutable_data_ptr<float>();
  p.top_indices = out.top_indices.mutable_data_ptr<std::int64_t>();
  if (q.is_cuda()) {
    const c10::cuda::CUDAGuard guard(q.device());
    // The top-k's split_select workspace where "auto" would take it (few long items).
    at::Tensor topk_workspace;
    const kernels::TopkProblem top = kernels::indexer_topk_problem(p);
    if (kernels::topk_prefers_split(top)) {
      const std::int64_t bytes = kernels::topk_split_workspace_bytes(top);
      topk_workspace = at::empty({bytes}, keys.options().dtype(at::kByte));
      p.topk_workspace = topk_workspace.mutable_data_ptr();
      p.topk_workspace_bytes = bytes;
    }
    check_kernel_status(kernels::invariant_indexer_cuda(p, at::cuda::getCurrentCUDAStream()),
                        "indexer");
  } else {
    TORCH_CHECK(q.is_cpu(), "samebits.indexer runs on CPU or CUDA tensors, not ", q.device());
    check_kernel_status(kernels::invariant_indexer_cpu(p), "indexer");
  }
  return out;
}

kernels::IndexerAlgorithm parse_indexer_algorithm(std::string_view name) {
  if (name == "tensor_cores") return kernels::IndexerAlgorithm::tensor_cores;
  if (name == "exact") return kernels::IndexerAlgorithm::exact;
  TORCH_CHECK(false, "samebits.indexer: algorithm must be \"tensor_cores\" or \"exact\", got \"",
              std::string(name), "\"");
}

}  // namespace samebits

namespace {

std::tuple<at::Tensor, at::Tensor, at::Tensor> indexer_op(
    const at::Tensor& q, const at::Tensor& keys, const at::Tensor& offsets,
    const at::Tensor& weights, std::int64_t k, std::int64_t max_length,
    const std::optional<at::Tensor>& q_scale, const std::optional<at::Tensor>& k_scale, bool unsafe,
    c10::string_view algorithm, const std::optional<at::Tensor>& status) {
  samebits::IndexerOutputs out = samebits::invariant_indexer(
      q, keys, offsets, weights, k, max_length, q_scale, k_scale, unsafe,
      samebits::parse_indexer_algorithm(std::string_view(algorithm.data(), algorithm.size())),
      status);
  return {out.scores, out.top_values, out.top_indices};
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(samebits, m) {
  m.def(
      "indexer(Tensor q, Tensor keys, Tensor offsets, Tensor weights, int k, int max_length=-1, "
      "Tensor? q_scale=None, Tensor? k_scale=None, bool unsafe=False, "
      "str algorithm=\"tensor_cores\", Tensor(a!)? status=None) -> "
      "(Tensor scores, Tensor top_values, Tensor top_indices)");
}

TORCH_LIBRARY_IMPL(samebits, CPU, m) {
  m.impl("indexer", indexer_op);
}

TORCH_LIBRARY_IMPL(samebits, CUDA, m) {
  m.impl("indexer", indexer_op);
}
