// Where each of the decoder's ops comes from: ATen or samebits, op by op, so that one run shows
// which op breaks a completion's invariance. The elementwise ops (RoPE, SiLU, products) are ATen's
// in every mix: each element's arithmetic is its own.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace samebits::decoder {

enum class Source { aten, samebits };

struct OpMix {
  std::string name;
  Source linear = Source::aten;       // x w^T: at::linear (cuBLAS) or samebits linear
  Source norm = Source::aten;         // at::rms_norm or samebits rms_norm / add_rms_norm
  Source attention = Source::aten;    // padded SDPA over the gathered cache, or the paged kernel
  Source log_softmax = Source::aten;  // at::log_softmax to float32, or samebits log_softmax
  // A control with a known answer (localize's): the layer whose MLP norm output, after the norm,
  // loses a quarter of the batch's mean row, so its rows follow the batch; -1 none. No shipped
  // mix sets it.
  std::int64_t planted_layer = -1;
};

// The mixes `decoder` offers as implementations, in the order a report lists them.
const std::vector<OpMix>& op_mixes();
const OpMix& op_mix(const std::string& name);  // throws std::invalid_argument naming the accepted

// Each op of a mix runs inside a RecordFunction user scope named after its family ("linear",
// "rms_norm", "add_rms_norm", "attention", "log_softmax"), and the model's forward names its
// stretches ("layer.1.mlp.down"): free unless something records (localize, the profiler).
inline constexpr const char* kOpFamilies[] = {"linear", "rms_norm", "add_rms_norm", "attention",
                                              "log_softmax"};

// The paged attention inputs of one step (see model.h's StepBatch), as tensors on the device.
struct PagedStep {
  at::Tensor block_table;    // [B, max_pages] int32
  at::Tensor cache_lengths;  // [B] int64
  at::Tensor q_offsets;      // [B + 1] int64
  std::vector<std::int64_t> host_q_offsets, host_cache_lengths;
  std::vector<std::vector<std::int32_t>> host_pages;
  // max_q_len and max_kv_len: the longest sequence's new tokens, and its keys (cached and new).
  std::int64_t page_size = 0, max_q_len = 0, max_kv_len = 0;
};

at::Tensor linear(const OpMix& m, const at::Tensor& x, const at::Tensor& w);
at::Tensor rms_norm(const OpMix& m, const at::Tensor& x, const at::Tensor& w, double eps);
// h = x + residual (rounded to the input type), then (rms_norm(h), h).
std::pair<at::Tensor, at::Tensor> add_rms_norm(const OpMix& m, const at::Tensor& x,
                                               const at::Tensor& residual, const at::Tensor& w,
                                               double eps);
// q [T, H, d], k_new and v_new [T, Hkv, d]: writes the new keys and values into the layer's
// cache, then attends causally over each sequence's cached and new keys. Returns [T, H, d].
at::Tensor attention(const OpMix& m, const at::Tensor& q, const at::Tensor& k_new,
                     const at::Tensor& v_new, at::Tensor& k_cache, at::Tensor& v_cache,
                     const PagedStep& step);
at::Tensor log_softmax(const OpMix& m, const at::Tensor& logits);  // float32 [R, V]

}  // namespace samebits::decoder
