// warp_select, the batched top-k for k <= 32 and rows of at most 2048 elements: one warp per row,
// keys in registers (striped: lane l holds elements l, l + 32, ...); elements below every lane's
// maximum are dropped, the k-th key is found one bit at a time with warp counts, and k <= 32 words
// are sorted by a bitonic network of shuffles. The chosen elements' order (key descending, index
// ascending) is unique and a row's work reads only that row, whatever the batch.
#include "kernels/common/cuda_status.h"
#include "kernels/topk/topk_device.cuh"

namespace samebits::kernels::topk_device {
namespace {

constexpr int kWarpsPerBlock = 4;
constexpr int kCandidates = 256;  // per warp: elements that can still be among the k largest

// The k-th key among a warp's elements (lane-striped: element m of this lane is keys[m], its
// index index_of(m), absent when negative), found one bit at a time with warp counts; then the
// chosen elements (above the k-th key, and the first of those equal to it in element order) are
// written to `chosen` in element order. Returns how many were chosen (min(k, present)).
template <int kN, typename IndexOf>
__device__ __forceinline__ std::uint32_t warp_choose(const std::uint32_t (&keys)[kN],
                                                     IndexOf index_of, std::uint32_t present,
                                                     std::uint32_t k, unsigned long long* chosen) {
  const int lane = threadIdx.x & 31;
  const std::uint32_t need_total = present < k ? present : k;
  std::uint32_t prefix = 0, mask = 0, need = need_total, matching = present;
  for (int bit = 31; bit >= 0 && matching != need; --bit) {
    const std::uint32_t next_mask = mask | (1u << bit);
    const std::uint32_t candidate = prefix | (1u << bit);
    unsigned int count = 0;
#pragma unroll
    for (int m = 0; m < kN; ++m) count += (keys[m] & next_mask) == candidate;
    count = __reduce_add_sync(kFullMask, count);
    if (count >= need) {
      prefix = candidate;
      matching = count;
    } else {
      need -= count;
      matching -= count;
    }
    mask = next_mask;
  }
  const unsigned lanes_below = (1u << lane) - 1;
  std::uint32_t equal_seen = 0, taken = 0;
#pragma unroll
  for (int m = 0; m < kN; ++m) {
    const int index = index_of(m);
    const std::uint32_t top = keys[m] & mask;
    const bool valid = index >= 0;
    const bool equal = valid && top == prefix;
    const unsigned equal_lanes = __ballot_sync(kFullMask, equal);
    const bool take =
        (valid && top > prefix) || (equal && equal_seen + __popc(equal_lanes & lanes_below) < need);
    equal_seen += __popc(equal_lanes);
    const unsigned take_lanes = __ballot_sync(kFullMask, take);
    if (take) {
      chosen[taken + __popc(take_lanes & lanes_below)] =
          sort_word(keys[m], static_cast<std::uint32_t>(index));
    }
    taken += __popc(take_lanes);
  }
  __syncwarp();
  return need_total;
}

// One warp per row of at most 32 * kItems elements. Every lane's largest key bounds the k-th
// largest from below (32 >= k elements reach the smallest of them), so only elements at or above
// that bound stay candidates; when at most kCandidates do (no mass of ties at the top), the bit
// search runs over them alone, in index order, from shared memory.
template <typename T, int kItems>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    warp_select_kernel(const T* values, Rows rows, std::int64_t num_rows, std::int64_t k,
                       T* out_values, std::int64_t* out_indices) {
  __shared__ unsigned long long chosen[kWarpsPerBlock][32];
  __shared__ unsigned long long candidates[kWarpsPerBlock][kCandidates];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const std::int64_t r = std::int64_t{blockIdx.x} * kWarpsPerBlock + warp;
  if (r >= num_rows) return;
  const GuardedRow at = rows.row(r);
  if (at.flaws) {  // the whole warp
    mark_row(rows, r, k, at.flaws, lane, 32, out_values, out_indices);
    return;
  }
  const T* row = values + at.start;
  const int length = static_cast<int>(at.length);
  const std::uint32_t k32 = static_cast<std::uint32_t>(k);

  // Every read goes out before any key is computed: kItems reads in flight per lane.
  T raw[kItems];
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int index = i * 32 + lane;
    if (index < length) raw[i] = row[index];
  }
  std::uint32_t keys[kItems];
  std::uint32_t lane_max = kNoElement;
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    keys[i] = i * 32 + lane < length ? key_of_bits(float_bits(raw[i])) : kNoElement;
    lane_max = keys[i] > lane_max ? keys[i] : lane_max;
  }
  const std::uint32_t bound = __reduce_min_sync(kFullMask, lane_max);
  std::uint32_t count = 0;
  const unsigned lanes_below = (1u << lane) - 1;
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int index = i * 32 + lane;
    const bool keep = index < length && keys[i] >= bound;
    const unsigned kept = __ballot_sync(kFullMask, keep);
    const std::uint32_t slot = count + __popc(kept & lanes_below);
    if (keep && slot < kCandidates) {
      candidates[warp][slot] = sort_word(keys[i], static_cast<std::uint32_t>(index));
    }
    count += __popc(kept);
  }
  __syncwarp();
  std::uint32_t taken;
  if (count <= kCandidates) {
    constexpr int kPerLane = kCandidates / 32;
    std::uint32_t candidate_keys[kPerLane];
    int candidate_index[kPerLane];
#pragma unroll
    for (int m = 0; m < kPerLane; ++m) {
      const std::uint32_t c = m * 32 + lane;
      const unsigned long long word = c < count ? candidates[warp][c] : kEmptyWord;
      candidate_keys[m] = c < count ? ~static_cast<std::uint32_t>(word >> 32) : kNoElement;
      candidate_index[m] = c < count ? static_cast<int>(index_of_word(word)) : -1;
    }
    taken = warp_choose(
        candidate_keys, [&](int m) { return candidate_index[m]; }, count, k32, chosen[warp]);
  } else {
    taken = warp_choose(
        keys, [&](int m) { return m * 32 + lane < length ? m * 32 + lane : -1; },
        static_cast<std::uint32_t>(length), k32, chosen[warp]);
  }
  unsigned long long word = lane < static_cast<int>(taken) ? chosen[warp][lane] : kEmptyWord;
  for (int size = 2; size <= 32; size <<= 1) {
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      word = exchange(word, static_cast<std::uint32_t>(lane), static_cast<std::uint32_t>(stride),
                      static_cast<std::uint32_t>(size));
    }
  }
  if (lane < k) {
    const std::int64_t index = lane < static_cast<int>(taken)
                                   ? static_cast<std::int64_t>(index_of_word(word))
                                   : std::int64_t{-1};
    write_slot(row, index, out_values + r * k, out_indices + r * k, lane);
  }
}

template <typename T, int kItems>
void launch_rows(const TopkProblem& p, cudaStream_t stream) {
  const Rows rows(p);
  const auto blocks = static_cast<unsigned>((p.rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
  warp_select_kernel<T, kItems><<<blocks, kWarpsPerBlock * 32, 0, stream>>>(
      static_cast<const T*>(p.values), rows, p.rows, p.k, static_cast<T*>(p.out_values),
      p.out_indices);
}

}  // namespace

// kItems elements per lane: the fewest that hold the longest row.
template <typename T>
Status warp_select(const TopkProblem& p, cudaStream_t stream) {
  const std::int64_t n = p.max_length;
  if (n <= 32)
    launch_rows<T, 1>(p, stream);
  else if (n <= 64)
    launch_rows<T, 2>(p, stream);
  else if (n <= 128)
    launch_rows<T, 4>(p, stream);
  else if (n <= 256)
    launch_rows<T, 8>(p, stream);
  else if (n <= 512)
    launch_rows<T, 16>(p, stream);
  else if (n <= 1024)
    launch_rows<T, 32>(p, stream);
  else
    launch_rows<T, 64>(p, stream);
  return launch_status();
}

template Status warp_select<float>(const TopkProblem&, cudaStream_t);
template Status warp_select<__half>(const TopkProblem&, cudaStream_t);
template Status warp_select<__nv_bfloat16>(const TopkProblem&, cudaStream_t);

}  // namespace samebits::kernels::topk_device
