// Whether a packed row [start, end) of `total` elements, at most max_length long, may be read: the
// flaws the kernels and their CPU twins find on the device themselves, never trusting the caller.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define SAMEBITS_ROW_GUARD_HD __host__ __device__ __forceinline__
#else
#define SAMEBITS_ROW_GUARD_HD inline
#endif

namespace samebits::kernels {

// Status bits, OR-ed into a call's status word (int32) by every row that has the flaw. A flawed
// row is read nowhere: its outputs are marked (top-k: value NaN, index -1 in every slot).
constexpr std::int32_t kRowOutside = 1;     // start or end outside [0, total]
constexpr std::int32_t kRowDecreasing = 2;  // end < start (a negative length)
constexpr std::int32_t kRowTooLong = 4;     // end - start > max_length
// The paged attention's own flaws (kernels/attention/sequence_guard.h); its sequence's rows of
// out and lse are marked NaN. (Offsets outside or decreasing, and keys past max_kv_len, take the
// three bits above.)
constexpr std::int32_t kNegativeCacheLength = 8;  // cache_lengths[b] < 0
constexpr std::int32_t kPagesBeyondTable = 16;    // its keys need more pages than its table row
constexpr std::int32_t kPageOutside = 32;         // a table entry it uses is not in [0, pages)

// The flaws of row [start, end); 0 for a row that lies in the tensor within max_length.
// A negative total means "not known" (kernel-level callers only): then only order and length.
SAMEBITS_ROW_GUARD_HD std::int32_t row_flaws(std::int64_t start, std::int64_t end,
                                             std::int64_t total, std::int64_t max_length) {
  std::int32_t flaws = 0;
  if (start < 0 || end < 0 || (total >= 0 && (start > total || end > total))) flaws |= kRowOutside;
  if (end < start)
    flaws |= kRowDecreasing;
  else if (start >= 0 && end - start > max_length)  // (start >= 0: no overflow)
    flaws |= kRowTooLong;
  return flaws;
}

// Row r of packed rows (row r is [offsets[r], offsets[r + 1])) as a kernel may read it: a flawed
// row reads as empty at 0. Unguarded (a test's control only), the offsets are taken as they are.
struct GuardedRow {
  std::int64_t start, length;
  std::int32_t flaws;
};
SAMEBITS_ROW_GUARD_HD GuardedRow guarded_row(const std::int64_t* offsets, std::int64_t r,
                                             std::int64_t total, std::int64_t max_length,
                                             bool guarded = true) {
  const std::int64_t start = offsets[r], end = offsets[r + 1];
  const std::int32_t flaws = guarded ? row_flaws(start, end, total, max_length) : 0;
  return flaws ? GuardedRow{0, 0, flaws} : GuardedRow{start, end - start, 0};
}

}  // namespace samebits::kernels
