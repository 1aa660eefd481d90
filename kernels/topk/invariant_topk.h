// Batched top-k over rows of any lengths in one launch, in the order of invariant_topk_order.h:
// each row's result is the first k of its stable descending sort, whatever the batch. No torch.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/common/row_guard.h"
#include "kernels/common/status.h"

namespace samebits::kernels {

// Which kernel runs. automatic: warp_select when k <= kWarpSelectMaxK and every row is at most
// kWarpSelectMaxLength long; split_select for long rows (topk_prefers_split) when the caller
// gave its workspace; radix_select otherwise. radix_select.cu, warp_select.cu and split_select.cu
// say how each works. Every one returns the same selection in the same order.
enum class TopkAlgorithm { automatic, radix_select, warp_select, split_select };

constexpr std::int64_t kWarpSelectMaxK = 32;
constexpr std::int64_t kWarpSelectMaxLength = 2048;
constexpr std::int64_t kRadixSelectMaxK = 16384;    // the sorted selection lives in shared memory
constexpr std::int64_t kMaxRowLength = 0x7fff0000;  // positions and loop bounds stay in int32
// split_select: a row's selection over segments of kSplitSegment elements, one block each.
constexpr std::int64_t kSplitSegment = 4096;
constexpr std::int64_t kSplitSelectMaxK =
    4096;  // the ordering holds a row's words in shared memory
// automatic: split_select for up to kSplitSelectAutoRows rows longer than kSplitSelectAbove (the
// length radix_select's key cache holds), or up to kSplitSelectLongAutoRows rows longer than
// kSplitSelectLongAbove. Measured on the H100, 2026-11-26 (bench/RESULTS.md, float32 rows, k 64
// and 2048): at 32768 split_select is faster up to 31 rows and slower at 128 (76.6 / 98.7 us
// against 49.6 / 53.7); at 131072 it is faster at every measured count up to 128 (200.8 / 245.4
// against 246.0 / 269.2 at 128). Beyond 128 rows nothing was measured: radix_select.
constexpr std::int64_t kSplitSelectAbove = 16384;
constexpr std::int64_t kSplitSelectAutoRows = 32;
constexpr std::int64_t kSplitSelectLongAbove = 65536;
constexpr std::int64_t kSplitSelectLongAutoRows = 128;
constexpr std::int64_t kSplitSelectMaxRows = 65535;

// Row r holds values[start(r) + i] for i < length(r), where
//   offsets != nullptr: start(r) = offsets[r], length(r) = offsets[r + 1] - offsets[r] (packed
//                       rows; offsets live where values live);
//   offsets == nullptr: start(r) = r * row_stride, length(r) = length.
// Results: out_values[r * k + j] (the input's bits, in the input's dtype) and out_indices[r * k +
// j] (position within the row), j < k. Slots j >= length(r) hold -inf and index -1.
// Packed rows are guarded where they are read (kernels/common/row_guard.h): a row outside
// [0, total], decreasing, or longer than max_length is read nowhere; its k slots hold NaN and
// index -1, and its flaws are OR-ed into *status (never cleared here) when status is given.
struct TopkProblem {
  const void* values = nullptr;
  DType dtype = DType::f32;
  std::int64_t rows = 0;
  const std::int64_t* offsets = nullptr;
  std::int64_t row_stride = 0;
  std::int64_t length = 0;
  std::int64_t max_length = 0;     // bounds every row's length (sizes the kernels; longer: marked)
  std::int64_t total = -1;         // packed rows: the elements values holds (negative: not known)
  std::int32_t* status = nullptr;  // where values live: OR of the rows' flaws (optional)
  // The guard's control, for tests only: packed rows are read as the offsets say, unguarded.
  bool unguarded_for_tests = false;
  std::int64_t k = 0;
  void* out_values = nullptr;
  std::int64_t* out_indices = nullptr;
  TopkAlgorithm algorithm = TopkAlgorithm::automatic;
  // split_select only: device memory of topk_split_workspace_bytes(p) bytes (any contents).
  void* workspace = nullptr;
  std::int64_t workspace_bytes = 0;
};

// Whether the sizes make sense for any path (the twin and both kernels): rows and lengths
// non-negative and bounded, k at least 1. The kernels check their own limits on top.
bool topk_problem_valid(const TopkProblem& p);

// Whether long rows would rather spread over split_select's blocks (given its workspace).
bool topk_prefers_split(const TopkProblem& p);

// Bytes of workspace split_select needs for p (whatever p.algorithm), 0 where it cannot run p.
std::int64_t topk_split_workspace_bytes(const TopkProblem& p);

// The kernel `automatic` picks for this problem (never `automatic`).
TopkAlgorithm choose_topk_algorithm(const TopkProblem& p);

// The CUDA kernels, asynchronous on `stream`.
Status invariant_topk_cuda(const TopkProblem& p, cudaStream_t stream);

// The CPU twin: the same keys and the same order, by a partial sort of the 64-bit sort words.
Status invariant_topk_cpu(const TopkProblem& p);

}  // namespace samebits::kernels
