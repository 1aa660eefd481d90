// split_select's workspace, what its phases pass each other across grid barriers: the layout of
// row states, row histograms, per-segment last-digit histograms and chosen words, and its reads.
#pragma once

#include <cstdint>

#include "kernels/topk/invariant_topk.h"
#include "kernels/topk/topk_device.cuh"

namespace samebits::kernels::topk_device {

constexpr int kPasses = 3;
constexpr int kRowBins = 4096;  // the widest digit's bins (12 bits)
constexpr int kLastBins = 256;  // the last digit's (8 bits), also kept per segment

// A row's state between phases, zeroed first. After a pass: the k-th key's bits under `mask` are
// `prefix`, and `need` keys matching them are still to be taken. `settled`: all of those are
// taken (need equals their count), so no later pass runs for the row; a row of at most k elements
// settles at pass 0 with an empty mask. `chosen`: the words the result takes, min(length, k).
// `taken` counts words written through the counter; `arrived` the segments done with the pass.
struct RowState {
  std::uint32_t prefix, mask, need, settled, chosen, taken, arrived, unused;
};
static_assert(sizeof(RowState) == 32, "read as two 16-byte words");

// The workspace: a header (per pass, the rows not settled by it), row states and histograms (all
// zeroed by the launch), then per row and segment the last pass's histogram (so that a segment
// knows how many keys equal to the k-th lie in earlier segments), then per row the k chosen words.
struct Workspace {
  unsigned int* remaining;    // [kPasses]
  RowState* state;            // [rows]
  unsigned int* histogram;    // [rows][kRowBins]
  unsigned int* segments;     // [rows][segments][kLastBins]
  unsigned long long* words;  // [rows][k]
  std::int64_t rows, segments_per_row;
};

constexpr std::int64_t kHeaderBytes = 16;

// A row's segments (an empty row has one, empty, so that its state is settled too).
inline __host__ __device__ std::int64_t segments_of(std::int64_t length) {
  return length <= kSplitSegment ? 1 : (length + kSplitSegment - 1) / kSplitSegment;
}

inline __host__ __device__ std::int64_t cleared_bytes(std::int64_t rows) {
  return kHeaderBytes +
         rows * static_cast<std::int64_t>(sizeof(RowState) + kRowBins * sizeof(unsigned int));
}

inline Workspace workspace_of(const TopkProblem& p) {
  auto* base = static_cast<unsigned char*>(p.workspace);
  Workspace w;
  w.rows = p.rows;
  w.segments_per_row = segments_of(p.max_length);
  w.remaining = reinterpret_cast<unsigned int*>(base);
  w.state = reinterpret_cast<RowState*>(base + kHeaderBytes);
  w.histogram = reinterpret_cast<unsigned int*>(base + kHeaderBytes + p.rows * sizeof(RowState));
  w.segments = reinterpret_cast<unsigned int*>(base + cleared_bytes(p.rows));
  w.words = reinterpret_cast<unsigned long long*>(base + cleared_bytes(p.rows) +
                                                  p.rows * w.segments_per_row * kLastBins *
                                                      sizeof(unsigned int));
  return w;
}

// The workspace as phases see it: written before the grid barrier (or the last arrival) by other
// blocks, so read from L2 (ld.cg), never a stale L1 line.
__device__ __forceinline__ RowState state_of(const Workspace& w, std::int64_t r) {
  const auto* at = reinterpret_cast<const uint4*>(w.state + r);
  const uint4 a = __ldcg(at), b = __ldcg(at + 1);
  return {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
}

}  // namespace samebits::kernels::topk_device
