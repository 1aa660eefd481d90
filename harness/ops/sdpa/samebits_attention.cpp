// The sdpa op's "samebits" implementation through torch.ops.samebits.attention, attention_varlen
// and attention_with_kvcache (out and lse), with only the op's own call in the capture scope.
#include "harness/ops/sdpa/samebits_attention.h"

#include <algorithm>
#include <stdexcept>

#include "harness/kernel_capture.h"

namespace samebits {
namespace {

// Item b's rows of a packed call: out [Tq, H, d] -> [H, Lq_b, d], lse [H, Tq] -> [H, Lq_b].
std::vector<AttentionOutputs> unpack(const AttentionOutputs& all,
                                     const std::vector<std::int64_t>& q_offsets) {
  std::vector<AttentionOutputs> per_item;
  for (std::size_t b = 0; b + 1 < q_offsets.size(); ++b) {
    const std::int64_t start = q_offsets[b], rows = q_offsets[b + 1] - q_offsets[b];
    per_item.push_back({all.out.narrow(0, start, rows).transpose(0, 1).contiguous(),
                        all.lse.narrow(1, start, rows).contiguous()});
  }
  return per_item;
}

// The longest item along dim 1 (L): the bound a caller passes, so no launch is sized by the total.
std::int64_t longest(const std::vector<at::Tensor>& items) {
  std::int64_t n = 0;
  for (const auto& x : items) n = std::max(n, x.size(1));
  return n;
}

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

AttentionOutputs samebits_attend_batch(const at::Tensor& q, const at::Tensor& k,
                                       const at::Tensor& v, bool causal) {
  const ComputeScope under_test;
  return differentiable_attention(q, k, v, causal);
}

std::vector<AttentionOutputs> samebits_attend_varlen(const std::vector<at::Tensor>& qs,
                                                     const std::vector<at::Tensor>& ks,
                                                     const std::vector<at::Tensor>& vs,
                                                     bool causal) {
  std::vector<std::int64_t> q_offsets, kv_offsets, unused;
  const at::Tensor q = pack(qs, q_offsets), k = pack(ks, kv_offsets), v = pack(vs, unused);
  const at::Tensor qo = at::tensor(q_offsets, at::kLong).to(q.device());
  const at::Tensor ko = at::tensor(kv_offsets, at::kLong).to(q.device());
  AttentionOutputs all;
  {
    const ComputeScope under_test;
    all = differentiable_attention_varlen(q, k, v, qo, ko, longest(qs), causal, std::nullopt,
                                          longest(ks));
  }
  return unpack(all, q_offsets);
}

std::vector<AttentionOutputs> samebits_attend_paged(const std::vector<at::Tensor>& qs,
                                                    const std::vector<at::Tensor>& ks,
                                                    const std::vector<at::Tensor>& vs,
                                                    bool causal) {
  constexpr std::int64_t kPage = 16;
  const auto sequences = static_cast<std::int64_t>(qs.size());
  std::int64_t pages = 1, max_pages = 1;  // one spare page, never named by the table
  for (const auto& k : ks) {
    pages += (k.size(1) + kPage - 1) / kPage;
    max_pages = std::max(max_pages, (k.size(1) + kPage - 1) / kPage);
  }
  const at::Tensor& k0 = ks.at(0);
  at::Tensor k_cache = at::zeros({pages, kPage, k0.size(0), k0.size(2)}, k0.options());
  at::Tensor v_cache = at::zeros_like(k_cache);
  // Page n of the pool goes to the n-th page asked for, counted backwards from the end: items'
  // pages are neither in order nor next to each other.
  std::vector<std::int32_t> table(sequences * max_pages, 0);
  std::vector<std::int64_t> cached;
  std::vector<at::Tensor> k_new, v_new;
  std::int64_t next = 0;
  for (std::int64_t b = 0; b < sequences; ++b) {
    const std::int64_t lq = qs[b].size(1), lk = ks[b].size(1);
    if (lq > lk) throw std::invalid_argument("samebits paged attention: an item has Lq > Lk");
    cached.push_back(lk - lq);
    const at::Tensor k = ks[b].transpose(0, 1), v = vs[b].transpose(0, 1);  // [Lk, Hkv, d]
    for (std::int64_t t = 0; t < lk; t += kPage) {
      const auto page = static_cast<std::int32_t>(pages - 1 - next++);
      table[b * max_pages + t / kPage] = page;
      const std::int64_t n = std::min(kPage, lk - lq - t);  // cached keys of this page
      if (n > 0) {
        k_cache[page].narrow(0, 0, n).copy_(k.narrow(0, t, n));
        v_cache[page].narrow(0, 0, n).copy_(v.narrow(0, t, n));
      }
    }
    k_new.push_back(k.narrow(0, lk - lq, lq));
    v_new.push_back(v.narrow(0, lk - lq, lq));
  }
  std::vector<std::int64_t> q_offsets;
  const at::Tensor q = pack(qs, q_offsets);
  const auto on = q.options().dtype(at::kLong);
  const at::Tensor qo = at::tensor(q_offsets, at::kLong).to(on.device());
  const at::Tensor lengths = at::tensor(cached, at::kLong).to(on.device());
  const at::Tensor blocks =
      at::tensor(table, at::kInt).view({sequences, max_pages}).to(on.device());
  const at::Tensor kn = at::cat(k_new).contiguous(), vn = at::cat(v_new).contiguous();
  AttentionOutputs all;
  {
    const ComputeScope under_test;
    all = invariant_attention_with_kvcache(q, k_cache, v_cache, blocks, lengths, qo, kn, vn,
                                           longest(qs), causal, std::nullopt, longest(ks));
  }
  return unpack(all, q_offsets);
}

}  // namespace samebits
