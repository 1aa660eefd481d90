// The sdpa op's "samebits" implementation through torch.ops.samebits.attention and
// attention_varlen, with only the op's own call inside the kernel-capture scope.
#include "harness/ops/sdpa_samebits.h"

#include "harness/kernel_capture.h"
#include "kernels/attention/binding.h"

namespace samebits {
namespace {

// [H, L, d] items -> [sum L, H, d] and the offsets of each item's rows.
at::Tensor pack(const std::vector<at::Tensor>& items, std::vector<std::int64_t>& offsets) {
  std::vector<at::Tensor> rows;
  offsets = {0};
  for (const auto& x : items) {
    rows.push_back(x.transpose(0, 1));
    offsets.push_back(offsets.back() + x.size(1));
  }
  return at::cat(rows, 0).contiguous();
}

}  // namespace

at::Tensor samebits_attend_batch(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                 bool causal) {
  const ComputeScope under_test;
  return invariant_attention(q, k, v, causal).out;
}

std::vector<at::Tensor> samebits_attend_varlen(const std::vector<at::Tensor>& qs,
                                               const std::vector<at::Tensor>& ks,
                                               const std::vector<at::Tensor>& vs, bool causal) {
  std::vector<std::int64_t> q_offsets, kv_offsets, unused;
  const at::Tensor q = pack(qs, q_offsets), k = pack(ks, kv_offsets), v = pack(vs, unused);
  const at::Tensor qo = at::tensor(q_offsets, at::kLong).to(q.device());
  const at::Tensor ko = at::tensor(kv_offsets, at::kLong).to(q.device());
  at::Tensor out;
  {
    const ComputeScope under_test;
    out = invariant_attention_varlen(q, k, v, qo, ko, -1, causal).out;
  }
  std::vector<at::Tensor> per_item;
  for (std::size_t b = 0; b < qs.size(); ++b) {
    per_item.push_back(
        out.narrow(0, q_offsets[b], q_offsets[b + 1] - q_offsets[b]).transpose(0, 1).contiguous());
  }
  return per_item;
}

}  // namespace samebits
