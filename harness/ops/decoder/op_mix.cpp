// The decoder's ops from ATen (cuBLAS linear, at::rms_norm, padded SDPA over the gathered cache,
// at::log_softmax) or from samebits (torch.ops.samebits.*), chosen op by op by an OpMix.
#include "harness/ops/decoder/op_mix.h"

#include <ATen/record_function.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

#include "harness/op.h"
#include "harness/ops/sdpa/aten_backends.h"
#include "kernels/attention/binding.h"
#include "kernels/linear/binding.h"
#include "kernels/norm/binding.h"
#include "kernels/softmax/binding.h"

namespace samebits::decoder {
namespace {

at::Tensor host_index(const std::vector<std::int64_t>& values, const at::Device& device) {
  return at::tensor(values, at::kLong).to(device);
}

// ATen's attention over a paged cache as an engine without a paged kernel would do it: the new
// keys and values copied into their slots, every sequence's keys gathered into one padded batch,
// and one at::scaled_dot_product_attention with a mask for causality and padding. The gather and
// the mask are built on the device from the block table.
at::Tensor aten_attention(const at::Tensor& q, const at::Tensor& k_new, const at::Tensor& v_new,
                          at::Tensor& k_cache, at::Tensor& v_cache, const PagedStep& s) {
  const auto device = q.device();
  const std::int64_t batch = static_cast<std::int64_t>(s.host_cache_lengths.size());
  const std::int64_t heads = q.size(1), kv_heads = k_new.size(1), d = q.size(2);
  const std::int64_t ps = s.page_size, max_q = s.max_q_len;
  // The new tokens' slots, and for each packed row its place in the padded batch.
  std::vector<std::int64_t> new_pages, new_slots, padded_rows;
  const std::int64_t max_k = s.max_kv_len;
  for (std::int64_t b = 0; b < batch; ++b) {
    const std::int64_t cached = s.host_cache_lengths[b];
    const std::int64_t q_len = s.host_q_offsets[b + 1] - s.host_q_offsets[b];
    const auto& pages = s.host_pages[static_cast<std::size_t>(b)];
    for (std::int64_t i = 0; i < q_len; ++i) {
      new_pages.push_back(pages[static_cast<std::size_t>((cached + i) / ps)]);
      new_slots.push_back((cached + i) % ps);
      padded_rows.push_back(b * max_q + i);
    }
  }
  const at::Tensor np = host_index(new_pages, device), ns = host_index(new_slots, device);
  k_cache.index_put_({np, ns}, k_new);
  v_cache.index_put_({np, ns}, v_new);

  const auto longs = at::TensorOptions().dtype(at::kLong).device(device);
  const at::Tensor cached = s.cache_lengths.unsqueeze(1);  // [B, 1]
  const at::Tensor q_len =
      (s.q_offsets.narrow(0, 1, batch) - s.q_offsets.narrow(0, 0, batch)).unsqueeze(1);  // [B, 1]
  const at::Tensor j = at::arange(max_k, longs).unsqueeze(0);                            // [1, K]
  const at::Tensor real_key = j < cached + q_len;                                        // [B, K]
  const at::Tensor table = s.block_table.to(at::kLong);
  const at::Tensor key_page = at::where(
      real_key,
      table.gather(1, at::div(j, ps, "floor").clamp_max(table.size(1) - 1).expand({batch, max_k})),
      0);
  const at::Tensor key_slot = at::where(real_key, j % ps, 0);
  const auto gathered = [&](const at::Tensor& cache) {
    return cache.index({key_page.reshape(-1), key_slot.reshape(-1)})
        .view({batch, max_k, kv_heads, d})
        .transpose(1, 2)
        .repeat_interleave(heads / kv_heads, 1);
  };
  // Query row i of sequence b is packed row q_offsets[b] + min(i, q_len - 1) (padding repeats its
  // last row; its output is dropped), and sees key j <= cached + i; a padding row sees key 0 only,
  // so that no row is all masked.
  const at::Tensor i = at::arange(max_q, longs).unsqueeze(0);  // [1, Q]
  const at::Tensor rows = s.q_offsets.narrow(0, 0, batch).unsqueeze(1) + at::minimum(i, q_len - 1);
  const at::Tensor qp = q.index_select(0, rows.reshape(-1)).view({batch, max_q, heads, d});
  const at::Tensor i3 = i.unsqueeze(2), j3 = j.unsqueeze(1);  // [1, Q, 1], [1, 1, K]
  const at::Tensor mask = at::where((i3 < q_len.unsqueeze(2)), j3 <= cached.unsqueeze(2) + i3,
                                    j3 == 0)
                              .unsqueeze(1);  // [B, 1, Q, K]
  // Through the harness's one SDPA entry (ATen's choice of backend): it holds the process-wide
  // backend flags shared while it runs, so a forced-backend case on another thread (--jobs: the
  // sdpa and attention contracts) cannot change them under this call.
  AttentionCall call;
  call.q = qp.transpose(1, 2);
  call.k = gathered(k_cache);
  call.v = gathered(v_cache);
  call.mask = mask;
  const at::Tensor out = attend(call, find_sdpa_impl("aten.auto"));  // [B, H, Q, d]
  return out.transpose(1, 2)
      .reshape({batch * max_q, heads, d})
      .index_select(0, host_index(padded_rows, device));
}

// A samebits kernel outside autograd returns a tensor without a graph: where its input takes a
// gradient (a trainer's forward), the gradient would silently miss that path, so the call stops.
at::Tensor with_backward(const char* family, bool input_takes_grad, at::Tensor out) {
  if (input_takes_grad && !out.requires_grad())
    throw Unsupported(fmt::format("samebits {} has no backward", family));
  return out;
}

}  // namespace

const std::vector<OpMix>& op_mixes() {
  static const std::vector<OpMix> mixes = {
      {"aten", Source::aten, Source::aten, Source::aten, Source::aten},
      {"samebits.attention", Source::aten, Source::aten, Source::samebits, Source::aten},
      {"samebits.except_linear", Source::aten, Source::samebits, Source::samebits,
       Source::samebits},
      {"samebits", Source::samebits, Source::samebits, Source::samebits, Source::samebits},
  };
  return mixes;
}

const OpMix& op_mix(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& m : op_mixes()) {
    if (m.name == name) return m;
    names.push_back(m.name);
  }
  throw std::invalid_argument(
      fmt::format("unknown decoder op mix \"{}\"; accepted: {}", name, fmt::join(names, ", ")));
}

at::Tensor linear(const OpMix& m, const at::Tensor& x, const at::Tensor& w) {
  RECORD_USER_SCOPE("linear");
  if (m.linear == Source::aten) return at::linear(x, w);
  return with_backward("linear", x.requires_grad(), invariant_linear(x, w, std::nullopt));
}

at::Tensor rms_norm(const OpMix& m, const at::Tensor& x, const at::Tensor& w, double eps) {
  RECORD_USER_SCOPE("rms_norm");
  if (m.norm == Source::aten) return at::rms_norm(x, {x.size(-1)}, w, eps);
  return with_backward("rms_norm", x.requires_grad(), invariant_rms_norm(x, w, eps));
}

std::pair<at::Tensor, at::Tensor> add_rms_norm(const OpMix& m, const at::Tensor& x,
                                               const at::Tensor& residual, const at::Tensor& w,
                                               double eps) {
  RECORD_USER_SCOPE("add_rms_norm");
  if (m.norm == Source::samebits) {
    auto out = invariant_add_rms_norm(x, residual, w, eps);
    with_backward("add_rms_norm", x.requires_grad() || residual.requires_grad(), out.first);
    return out;
  }
  const at::Tensor h = x + residual;
  return {rms_norm(m, h, w, eps), h};
}

at::Tensor attention(const OpMix& m, const at::Tensor& q, const at::Tensor& k_new,
                     const at::Tensor& v_new, at::Tensor& k_cache, at::Tensor& v_cache,
                     const PagedStep& step) {
  RECORD_USER_SCOPE("attention");
  if (m.attention == Source::aten) return aten_attention(q, k_new, v_new, k_cache, v_cache, step);
  // (max_kv_len sizes the launch for the longest sequence rather than the whole block table: the
  // same bits; the kernel checks it on the device)
  return with_backward("attention",
                       q.requires_grad() || k_new.requires_grad() || v_new.requires_grad(),
                       invariant_attention_with_kvcache(q, k_cache, v_cache, step.block_table,
                                                        step.cache_lengths, step.q_offsets, k_new,
                                                        v_new, step.max_q_len, /*causal=*/true,
                                                        /*scale=*/std::nullopt, step.max_kv_len)
                           .out);
}

at::Tensor log_softmax(const OpMix& m, const at::Tensor& logits) {
  RECORD_USER_SCOPE("log_softmax");
  if (m.log_softmax == Source::aten) return at::log_softmax(logits, -1, at::kFloat);
  return with_backward("log_softmax", logits.requires_grad(),
                       invariant_softmax(logits, at::kFloat, /*log=*/true));
}

}  // namespace samebits::decoder
