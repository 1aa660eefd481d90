// The one order in which samebits adds the elements of a reduction, for the CUDA kernels and their
// CPU twin alike. It depends on the logical length n alone, never on strides, alignment or batch.
//
// A chunk is 4096 consecutive elements (the last may be shorter). Within a chunk, lane t of 256
// adds, starting from +0.0f, the elements at p = 1024 k + 4 t + j for k = 0..3, then j = 0..3, in
// that order (p < n only). The 256 lane sums are then combined by a fixed tree: for s = 128, 64,
// ..., 1, lane t < s becomes lane t + lane t+s. Lane 0 is the chunk's sum. A longer reduction sums
// its chunk sums, in chunk order, by the same rule applied to the vector of chunk sums, until one
// value is left. A mean divides that sum by n (one IEEE float division). Every add is a plain
// float32 add (no FMA, no fast-math), so the CUDA kernel and the CPU twin give the same bits.
#pragma once

#include <cstdint>

namespace samebits::kernels::reduce_order {

inline constexpr int kLanes = 256;
inline constexpr int kVector = 4;                           // consecutive elements per lane step
inline constexpr int kSteps = 4;                            // steps per lane
inline constexpr int kStepSpan = kLanes * kVector;          // 1024
inline constexpr std::int64_t kChunk = kStepSpan * kSteps;  // 4096

inline std::int64_t chunks(std::int64_t n) {
  return (n + kChunk - 1) / kChunk;
}

}  // namespace samebits::kernels::reduce_order
