// Batch-invariant attention: O = softmax(Q K^T * scale) V and the log-sum-exp per query row, each
// row's bits a function of its own sequence alone (invariant_attention_order.h). No torch here.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/common/status.h"

namespace samebits::kernels {

// One problem covers the dense [B, H, L, d] layout, packed variable-length sequences and a paged
// KV cache; strides are in elements. Sequence b has q_len(b) new queries and kv_len(b) keys; its
// queries are its last q_len(b) positions: query i sits at absolute position kv_len(b) - q_len(b)
// + i (so prefill, chunked prefill and decode address the same keys the same way).
//  - q_len(b) = q_offsets ? q_offsets[b + 1] - q_offsets[b] : q_len
//  - kv_len(b) = kv_lengths ? kv_lengths[b] : kv_offsets ? kv_offsets[b + 1] - kv_offsets[b] :
//  kv_len
//  - query i of sequence b, head h, element j (out likewise with out_* strides):
//      q[b * q_seq_stride + ((q_offsets ? q_offsets[b] : 0) + i) * q_token_stride
//        + h * q_head_stride + j]
//  - lse (float32) likewise with lse_seq_stride, lse_token_stride, lse_head_stride
//  - the key at absolute position t of sequence b, KV head g = h / (heads / kv_heads), element j:
//      with block_table: page = block_table[b * block_table_stride + t / page_size],
//        k[page * k_page_stride + (t % page_size) * k_token_stride + g * k_head_stride + j]
//      without: k[b * k_page_stride + ((kv_offsets ? kv_offsets[b] : 0) + t) * k_token_stride
//                 + g * k_head_stride + j]
//    values likewise with the v_* strides.
// Every pointer lives on the device for the CUDA path and on the host for the twin.
// How the CUDA path computes: on tensor cores (mma.sync, and wgmma for prefill blocks on Hopper;
// head dims 64 and 128; q, k and v 16-byte aligned with token, head and page strides multiples of
// 8 elements), or on FP32 FMA units in the twin's exact order (every head dim, any stride; the CPU
// twin's bits). Each keeps every row's bits independent of the batch; the two give different bits
// (invariant_attention_order.h).
enum class AttentionAlgorithm { tensor_cores, exact };

struct AttentionProblem {
  DType dtype = DType::bf16;  // of q, k, v and out: bf16 or f16
  AttentionAlgorithm algorithm = AttentionAlgorithm::exact;
  std::int64_t sequences = 0, heads = 0, kv_heads = 0, head_dim = 0;
  float scale = 0.0f;  // the softmax scale, usually 1 / sqrt(head_dim)
  bool causal = true;

  const void* q = nullptr;
  const std::int64_t* q_offsets = nullptr;
  std::int64_t q_len = 0, max_q_len = 0;  // max_q_len bounds every q_len(b): it sizes the launch
  std::int64_t q_seq_stride = 0, q_token_stride = 0, q_head_stride = 0;

  const void* k = nullptr;
  const void* v = nullptr;
  const std::int64_t* kv_offsets = nullptr;
  const std::int64_t* kv_lengths = nullptr;
  std::int64_t kv_len = 0;
  const std::int32_t* block_table = nullptr;
  std::int64_t block_table_stride = 0, page_size = 0;
  // Packed CUDA calls: the flaws of each sequence, as the sequence guard found them on the device
  // (sequence_guard.h; kernels/common/row_guard.h's bits). A flawed sequence has no queries and no
  // keys for every kernel: it is read nowhere. nullptr: the metadata are taken as they are.
  const std::int32_t* sequence_flaws = nullptr;
  std::int64_t k_page_stride = 0, k_token_stride = 0, k_head_stride = 0;
  std::int64_t v_page_stride = 0, v_token_stride = 0, v_head_stride = 0;

  void* out = nullptr;
  std::int64_t out_seq_stride = 0, out_token_stride = 0, out_head_stride = 0;
  float* lse = nullptr;  // may be nullptr
  std::int64_t lse_seq_stride = 0, lse_token_stride = 0, lse_head_stride = 0;

  // CUDA only, optional: with a workspace of attention_split_workspace_floats() floats and
  // max_kv_len (>= every kv_len(b)), the splits of a row run on separate warps (exact) or blocks
  // (tensor cores) and a second launch merges them in split order: the same bits, more parallel
  // work for few rows over long keys.
  float* workspace = nullptr;
  std::int64_t workspace_floats = 0, max_kv_len = -1;

  // Tensor cores only, optional: with attention_border_workspace_floats() floats here, a block
  // whose keys cross a split border keeps the merged partial of its earlier splits in it rather
  // than in shared memory (which would halve the blocks an SM holds): the same bits, faster. The
  // wgmma blocks, one per SM whatever they take, keep it in shared memory and use none.
  float* border_workspace = nullptr;
  std::int64_t border_workspace_floats = 0;

  // Tensor cores only: prefill blocks on Hopper's wgmma where the GPU has it (true), else on
  // mma.sync, which gives the same bits (the GPU tests compare the two; false is for them).
  bool warpgroup_mma = true;
  // Tensor cores on Hopper only: the wgmma prefill's persistent blocks, each taking turns over
  // the blocks a plain launch would have (0: as attention_warpgroups_persistent says, one per SM
  // or a turn per block). The tests give a few, so that every block takes many turns: the same
  // bits.
  std::int64_t persistent_blocks = 0;
  // With those blocks, optional: one zeroed counter (device memory) they take their turns from,
  // in launch order as each block frees (attention_takes_turns says when a launch would use it);
  // without it a static order, up to 9 % slower on causal launches. The same bits either way.
  unsigned long long* turn_counter = nullptr;
};

// Head dims the kernels take.
bool attention_head_dim_supported(std::int64_t head_dim);

// The sizes and pointers both paths need: a supported dtype and head dim, heads a multiple of
// kv_heads, at most 65535 sequences and heads, a positive page size with a block table.
Status attention_problem_check(const AttentionProblem& p);

// Whether the tensor-core path takes p (head dim, alignment of pointers and strides).
bool attention_tensor_cores_supported(const AttentionProblem& p);

// Whether a launch over p should give each split its own warps (exact) or blocks (tensor cores)
// and merge them in a second launch: when the keys are long and the rows too few to fill
// `multiprocessors` SMs otherwise. Either way gives the same bits; only the speed differs.
bool attention_prefers_split_launch(const AttentionProblem& p, int multiprocessors);

// Whether a launch over p runs the persistent prefill blocks, which take a turn counter.
bool attention_takes_turns(const AttentionProblem& p);

// Floats of border workspace a launch over p can use (0: none would be used).
std::int64_t attention_border_workspace_floats(const AttentionProblem& p);

// Floats of workspace the split path needs: one (m, l, acc[d]) per row, head and split.
std::int64_t attention_split_workspace_floats(const AttentionProblem& p);

// Runs p.algorithm; the tensor-core path returns invalid_argument where it is not supported.
Status invariant_attention_cuda(const AttentionProblem& p, cudaStream_t stream);

// The CPU twin: the exact path's operations in its order, so its bits (p.algorithm is ignored).
Status invariant_attention_cpu(const AttentionProblem& p);

}  // namespace samebits::kernels
