// A Llama-shaped decoder (RMSNorm, GQA attention with RoPE over a paged KV cache, SwiGLU) with
// seeded random weights, whose every op comes from an OpMix: the model samebits' decoder check
// serves.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

#include "harness/ops/decoder/op_mix.h"

namespace samebits::decoder {

struct ModelConfig {
  std::string name;  // "tiny", "small"
  std::int64_t layers = 0, d_model = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn = 0;
  std::int64_t vocab = 0;
  std::int64_t page_size = 16;  // KV-cache slots per page
  double eps = 1e-5;
  double rope_theta = 10000;
};

// The sizes `samebits run` knows by name: "tiny" (CI's CPU), "small" (the H100's: 8 layers,
// d_model 1024, 16 query and 4 KV heads, SwiGLU 2816, a 32000-token vocabulary).
const std::vector<std::string>& model_names();
ModelConfig model_config(const std::string& name);  // throws std::invalid_argument

struct LayerWeights {
  at::Tensor attn_norm, wq, wk, wv, wo;       // wq [H*d, D], wk and wv [Hkv*d, D], wo [D, H*d]
  at::Tensor mlp_norm, w_gate, w_up, w_down;  // [F, D], [F, D], [D, F]
};

struct Weights {
  at::Tensor embed;  // [V, D]
  std::vector<LayerWeights> layers;
  at::Tensor final_norm, lm_head;  // [D], [V, D]
  at::Tensor rope_cos, rope_sin;   // [max_positions, d/2] float32, computed in float64 on the host
};

// Weights drawn from `gen` (normal, scaled by 1/sqrt(fan in); norm weights in [0.5, 1.5]) in
// `dtype` on `device`, with RoPE tables for positions [0, max_positions).
Weights make_weights(const ModelConfig& c, at::ScalarType dtype, const at::Device& device,
                     at::Generator& gen, std::int64_t max_positions);

// The paged KV cache: per layer k and v [pages, page_size, Hkv, d].
struct KvCache {
  std::vector<at::Tensor> k, v;
};
KvCache make_cache(const ModelConfig& c, std::int64_t pages, at::ScalarType dtype,
                   const at::Device& device);

// One forward step over the tokens of several sequences packed together: sequence b's new tokens
// are rows q_offsets[b] .. q_offsets[b+1], at positions cache_lengths[b] + i, its keys in the
// pages its block-table row names. Returns float32 log-probabilities [rows, V] of the packed rows
// named in `logit_rows`, in that order.
struct StepBatch {
  std::vector<std::int64_t> tokens;              // packed
  std::vector<std::int64_t> q_offsets;           // B + 1
  std::vector<std::int64_t> cache_lengths;       // B, keys cached before this step
  std::vector<std::vector<std::int32_t>> pages;  // B, each covering cache_length + new tokens
  std::vector<std::int64_t> logit_rows;
  // Optional [tokens, D]: the rows the forward starts from in place of embedding `tokens` (a
  // trainer's leaves, for the gradient of the log-probabilities).
  at::Tensor embeddings;
};
at::Tensor forward(const ModelConfig& c, const Weights& w, const OpMix& ops, KvCache& cache,
                   const StepBatch& step);

}  // namespace samebits::decoder
