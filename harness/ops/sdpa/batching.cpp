// The forms in which a batch of attention sequences reaches SDPA: stacked, right/left-padded or
// packed with a block mask, and a causal prefill split into chunks or decoded token by token.
#include "harness/ops/sdpa/batching.h"

#include <algorithm>
#include <stdexcept>

#include "harness/ops/sdpa/samebits_attention.h"

namespace samebits {
namespace {

// Where one item sits in a padded or packed batch: its row and its query and key ranges.
struct Span {
  std::int64_t row = 0;
  std::int64_t q_start = 0, q_len = 0;
  std::int64_t k_start = 0, k_len = 0;
};

// [rows, 1, lq, lk] bool (broadcast over heads): each span's queries see its own keys, causally
// where asked; padded query rows see nothing (their outputs are discarded).
at::Tensor span_mask(const std::vector<Span>& spans, std::int64_t rows, std::int64_t lq,
                     std::int64_t lk, bool causal, const at::Device& device) {
  at::Tensor mask = at::zeros({rows, 1, lq, lk}, at::TensorOptions(at::kBool).device(device));
  for (const auto& s : spans) {
    mask.select(0, s.row)
        .select(0, 0)
        .narrow(0, s.q_start, s.q_len)
        .narrow(1, s.k_start, s.k_len)
        .copy_(visible_keys(s.q_len, s.k_len, causal, device));
  }
  return mask;
}

}  // namespace

at::Tensor visible_keys(std::int64_t lq, std::int64_t lk, bool causal, const at::Device& device) {
  const at::Tensor all = at::ones({lq, lk}, at::TensorOptions(at::kBool).device(device));
  return causal ? all.tril(lk - lq) : all;
}

Attended attend_batch(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                      const SdpaSetup& setup) {
  if (setup.impl->bundled) {
    const AttentionOutputs r = samebits_attend_batch(q, k, v, setup.causal);
    return {r.out, r.lse};
  }
  AttentionCall call{q, k, v, std::nullopt, false, setup.enable_gqa};
  const std::int64_t lq = q.size(2), lk = k.size(2);
  if (setup.causal && lq == lk) {
    call.is_causal = true;
  } else if (setup.causal && lq > 1) {
    call.mask = visible_keys(lq, lk, true, q.device()).view({1, 1, lq, lk});
  }
  return {attend(call, *setup.impl), std::nullopt};
}

std::vector<Attended> attend_varlen(const std::vector<at::Tensor>& qs,
                                    const std::vector<at::Tensor>& ks,
                                    const std::vector<at::Tensor>& vs, PaddingMode mode,
                                    const at::Scalar& fill, const SdpaSetup& setup) {
  // samebits takes lengths: every padding mode reaches it as packed sequences with offsets, but a
  // paged batch goes through its paged KV cache.
  if (setup.impl->bundled) {
    std::vector<Attended> per_item;
    for (const auto& r : mode == PaddingMode::paged
                             ? samebits_attend_paged(qs, ks, vs, setup.causal)
                             : samebits_attend_varlen(qs, ks, vs, setup.causal))
      per_item.push_back({r.out, r.lse});
    return per_item;
  }
  if (mode == PaddingMode::paged)
    throw std::invalid_argument("sdpa: ATen's backends take no paged KV cache");
  std::vector<Span> spans;
  at::Tensor q, k, v;
  if (mode == PaddingMode::packed) {
    const PackedBatch pq = pack_batch(qs, 1), pk = pack_batch(ks, 1), pv = pack_batch(vs, 1);
    for (std::size_t b = 0; b < qs.size(); ++b) {
      spans.push_back({0, pq.offsets[b], pq.offsets[b + 1] - pq.offsets[b], pk.offsets[b],
                       pk.offsets[b + 1] - pk.offsets[b]});
    }
    q = pq.data.unsqueeze(0);
    k = pk.data.unsqueeze(0);
    v = pv.data.unsqueeze(0);
  } else {
    const PaddedBatch pq = pad_batch(qs, 1, mode, fill), pk = pad_batch(ks, 1, mode, fill),
                      pv = pad_batch(vs, 1, mode, fill);
    for (std::size_t b = 0; b < qs.size(); ++b) {
      spans.push_back(
          {static_cast<std::int64_t>(b), pq.starts[b], pq.lengths[b], pk.starts[b], pk.lengths[b]});
    }
    q = pq.data;
    k = pk.data;
    v = pv.data;
  }
  AttentionCall call{q, k, v, std::nullopt, false, setup.enable_gqa};
  call.mask = span_mask(spans, q.size(0), q.size(2), k.size(2), setup.causal, q.device());
  const at::Tensor out = attend(call, *setup.impl);
  std::vector<Attended> per_item;
  for (const auto& s : spans)
    per_item.push_back({out[s.row].narrow(1, s.q_start, s.q_len), std::nullopt});
  return per_item;
}

Attended attend_chunked(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
                        std::int64_t chunk, const SdpaSetup& setup) {
  const std::int64_t length = q.size(2);
  std::vector<at::Tensor> outs, lses;
  for (std::int64_t start = 0; start < length; start += chunk) {
    const std::int64_t end = std::min(length, start + chunk);
    Attended piece = attend_batch(q.narrow(2, start, end - start).contiguous(),
                                  k_cache.narrow(2, 0, end), v_cache.narrow(2, 0, end), setup);
    outs.push_back(piece.out);
    if (piece.lse) lses.push_back(*piece.lse);
  }
  if (lses.empty()) return {at::cat(outs, 2), std::nullopt};
  return {at::cat(outs, 2), at::cat(lses, 2)};
}

}  // namespace samebits
