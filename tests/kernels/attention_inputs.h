// Seeded sequences for the attention tests, laid out as a packed batch or a paged cache, and one
// call that runs the kernel (CUDA) or its twin (CPU) on them. A sequence's tokens derive from its
// own seed alone, so the same sequence is the same data in any batch, chunk or layout.
#pragma once

#include <ATen/ATen.h>
#include <c10/cuda/CUDAStream.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/attention/invariant_attention.h"
#include "tests/kernels/bit_compare.h"

namespace samebits {

struct AttentionShape {
  at::ScalarType dtype = at::kBFloat16;
  std::int64_t heads = 4, kv_heads = 4, head_dim = 64;
  bool causal = true;
  // Keys scaled by 1 + position / key_rise (0: not scaled): scores whose row max climbs along the
  // keys, so that the running max moves tile after tile.
  double key_rise = 0.0;
};

// Sequence `seed` of `length` tokens, of which this call sees the keys [0, kv_len) and the queries
// of positions [kv_len - q_len, kv_len) (a chunk ending at kv_len; q_len = kv_len: whole prefill).
struct SequenceCall {
  std::uint64_t seed = 0;
  std::int64_t length = 0, kv_len = 0, q_len = 0;
};

// All of one sequence's tokens: q [L, H, d], k and v [L, Hkv, d], in the shape's dtype.
struct SequenceData {
  at::Tensor q, k, v;
};

inline SequenceData sequence_data(const AttentionShape& s, std::uint64_t seed,
                                  std::int64_t length) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  const auto f32 = at::TensorOptions().dtype(at::kFloat);
  at::Tensor q = at::randn({length, s.heads, s.head_dim}, gen, f32);
  at::Tensor k = at::randn({length, s.kv_heads, s.head_dim}, gen, f32);
  const at::Tensor v = at::randn({length, s.kv_heads, s.head_dim}, gen, f32);
  if (s.key_rise > 0.0) k = k * (1.0 + at::arange(length, f32).view({length, 1, 1}) / s.key_rise);
  return {q.to(s.dtype), k.to(s.dtype), v.to(s.dtype)};
}

// What came out: out [total_q, H, d] (the dtype) and lse [total_q, H] (float32), rows packed in
// call order; rows(c) are call c's rows.
struct AttentionResult {
  at::Tensor out, lse;
  std::vector<std::int64_t> q_offsets;
  at::Tensor rows(std::size_t call) const {
    return out.slice(0, q_offsets[call], q_offsets[call + 1]);
  }
  at::Tensor lse_rows(std::size_t call) const {
    return lse.slice(0, q_offsets[call], q_offsets[call + 1]);
  }
};

// page_size 0: keys packed with offsets; else a paged cache of that page size whose pages are
// handed out in a shuffled order (seeded), with `spare_pages` unused pages mixed in. The twin
// (cuda false) always follows the exact order; on CUDA `algorithm` picks the kernel, and
// persistent_blocks (> 0) caps the wgmma prefill's persistent blocks, which take their turns from a
// counter with turn_counter, else in a static order. out_shift elements before out in its buffer
// (2: rows 4-byte but not 16-byte aligned) move the kernel's stores off their aligned path.
inline AttentionResult run_attention(
    const AttentionShape& s, const std::vector<SequenceCall>& calls, bool cuda,
    std::int64_t page_size = 0, std::uint64_t page_seed = 1, bool split_warps = false,
    kernels::AttentionAlgorithm algorithm = kernels::AttentionAlgorithm::exact,
    bool border_workspace = false, bool warpgroup_mma = true, std::int64_t persistent_blocks = 0,
    bool turn_counter = false, std::int64_t out_shift = 0) {
  namespace k = kernels;
  std::vector<std::int64_t> q_offsets{0}, kv_offsets{0}, kv_lengths;
  std::vector<at::Tensor> qs, ks, vs;
  std::int64_t max_q = 0, max_pages = 0;
  std::map<std::pair<std::uint64_t, std::int64_t>, SequenceData> made;  // chunks share a sequence
  for (const auto& c : calls) {
    if (c.kv_len > c.length || c.q_len > c.kv_len) throw std::invalid_argument("bad SequenceCall");
    const auto key = std::make_pair(c.seed, c.length);
    if (made.find(key) == made.end()) made.emplace(key, sequence_data(s, c.seed, c.length));
    const SequenceData& d = made.at(key);
    qs.push_back(d.q.slice(0, c.kv_len - c.q_len, c.kv_len));
    ks.push_back(d.k.slice(0, 0, c.kv_len));
    vs.push_back(d.v.slice(0, 0, c.kv_len));
    q_offsets.push_back(q_offsets.back() + c.q_len);
    kv_offsets.push_back(kv_offsets.back() + c.kv_len);
    kv_lengths.push_back(c.kv_len);
    max_q = std::max(max_q, c.q_len);
    if (page_size > 0) max_pages = std::max(max_pages, (c.kv_len + page_size - 1) / page_size);
  }
  const at::Device device = cuda ? at::Device(at::kCUDA) : at::Device(at::kCPU);
  at::Tensor q = at::cat(qs).to(device).contiguous();
  at::Tensor kk = at::cat(ks), vv = at::cat(vs);
  at::Tensor block_table;
  if (page_size > 0) {
    // Each sequence's pages, then 3 spare ones, shuffled over the pool.
    std::int64_t pages = 3;
    for (const auto& c : calls) pages += (c.kv_len + page_size - 1) / page_size;
    std::vector<std::int32_t> order(pages);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(page_seed));
    at::Tensor kc = at::full({pages, page_size, s.kv_heads, s.head_dim}, 7.0, kk.options());
    at::Tensor vc = at::full({pages, page_size, s.kv_heads, s.head_dim}, 7.0, vv.options());
    std::vector<std::int32_t> table(calls.size() * std::max<std::int64_t>(max_pages, 1), -1);
    std::size_t next = 0;
    for (std::size_t b = 0; b < calls.size(); ++b) {
      for (std::int64_t t = 0; t < calls[b].kv_len; t += page_size) {
        const std::int32_t page = order[next++];
        table[b * std::max<std::int64_t>(max_pages, 1) + t / page_size] = page;
        const std::int64_t n = std::min(page_size, calls[b].kv_len - t);
        kc[page].slice(0, 0, n).copy_(ks[b].slice(0, t, t + n));
        vc[page].slice(0, 0, n).copy_(vs[b].slice(0, t, t + n));
      }
    }
    kk = kc;
    vv = vc;
    block_table = at::tensor(table, at::kInt).to(device);
  }
  kk = kk.to(device).contiguous();
  vv = vv.to(device).contiguous();
  const at::Tensor qo = at::tensor(q_offsets, at::kLong).to(device);
  const at::Tensor ko = at::tensor(kv_offsets, at::kLong).to(device);
  const at::Tensor kl = at::tensor(kv_lengths, at::kLong).to(device);
  AttentionResult r;
  r.q_offsets = q_offsets;
  const std::int64_t out_numel = q_offsets.back() * s.heads * s.head_dim;
  r.out = at::full({out_numel + out_shift}, 5.0, q.options())
              .narrow(0, out_shift, out_numel)
              .view({q_offsets.back(), s.heads, s.head_dim});
  r.lse = at::full({q_offsets.back(), s.heads}, 5.0, q.options().dtype(at::kFloat));

  k::AttentionProblem p;
  p.dtype = s.dtype == at::kBFloat16 ? k::DType::bf16 : k::DType::f16;
  p.algorithm = algorithm;
  p.warpgroup_mma = warpgroup_mma;
  p.persistent_blocks = persistent_blocks;
  at::Tensor turns;
  if (turn_counter && cuda) {
    turns = at::zeros({1}, at::device(at::kCUDA).dtype(at::kLong));
    p.turn_counter = reinterpret_cast<unsigned long long*>(turns.mutable_data_ptr<std::int64_t>());
  }
  p.sequences = static_cast<std::int64_t>(calls.size());
  p.heads = s.heads;
  p.kv_heads = s.kv_heads;
  p.head_dim = s.head_dim;
  p.scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
  p.causal = s.causal;
  p.q = q.data_ptr();
  p.q_offsets = qo.data_ptr<std::int64_t>();
  p.max_q_len = max_q;
  p.q_token_stride = s.heads * s.head_dim;
  p.q_head_stride = s.head_dim;
  p.k = kk.data_ptr();
  p.v = vv.data_ptr();
  p.k_head_stride = p.v_head_stride = s.head_dim;
  p.k_token_stride = p.v_token_stride = s.kv_heads * s.head_dim;
  if (page_size > 0) {
    p.kv_lengths = kl.data_ptr<std::int64_t>();
    p.block_table = block_table.data_ptr<std::int32_t>();
    p.block_table_stride = std::max<std::int64_t>(max_pages, 1);
    p.page_size = page_size;
    p.k_page_stride = p.v_page_stride = page_size * s.kv_heads * s.head_dim;
  } else {
    p.kv_offsets = ko.data_ptr<std::int64_t>();
  }
  p.out = r.out.data_ptr();
  p.out_token_stride = s.heads * s.head_dim;
  p.out_head_stride = s.head_dim;
  p.lse = r.lse.data_ptr<float>();
  p.lse_token_stride = s.heads;
  p.lse_head_stride = 1;
  std::int64_t longest = 0;
  for (const auto& c : calls) longest = std::max(longest, c.kv_len);
  p.max_kv_len = longest;
  at::Tensor workspace;
  if (split_warps) {  // the CUDA path with each split on its own warps, merged by a second launch
    const std::int64_t floats = k::attention_split_workspace_floats(p);
    workspace = at::full({std::max<std::int64_t>(floats, 1)}, NAN, q.options().dtype(at::kFloat));
    p.workspace = workspace.data_ptr<float>();
    p.workspace_floats = floats;
  }
  at::Tensor border;
  // Tensor cores: merged partials in global memory, not shared (the wgmma prefill always keeps
  // them there: without the workspace, a call whose keys cross a split border runs mma.sync).
  if (const std::int64_t floats = k::attention_border_workspace_floats(p);
      border_workspace || (cuda && warpgroup_mma && floats > 0)) {
    border = at::full({std::max<std::int64_t>(floats, 1)}, NAN, q.options().dtype(at::kFloat));
    p.border_workspace = border.data_ptr<float>();
    p.border_workspace_floats = floats;
  }
  const k::Status status =
      cuda ? k::invariant_attention_cuda(p, c10::cuda::getCurrentCUDAStream().stream())
           : k::invariant_attention_cpu(p);
  if (status != k::Status::ok)
    throw std::runtime_error(std::string("attention: ") + k::to_string(status));
  r.out = r.out.cpu();
  r.lse = r.lse.cpu();
  return r;
}

}  // namespace samebits
