// radix_select, the batched top-k for any k up to 16384: one block per row, its keys cached in
// shared memory (rows up to 16384). Passes of 8-bit digit histograms (one per warp) find the k-th
// key; warp ballots in index order take the elements above it and the first of those equal to it.
// Up to 2048 chosen are ordered by counting them into 4096 buckets of their top key bits and
// ranking each within its bucket (CUB's stable block radix sort when a bucket holds more than 64:
// near-ties); a bitonic sort of 64-bit (key, index) words orders more. The chosen elements' order
// (key descending, index ascending) is unique, so no thread timing shows, and a row's work reads
// only that row: nothing depends on how many rows share the launch or where a row starts.
#include <cub/block/block_radix_sort.cuh>

#include "kernels/common/cuda_status.h"
#include "kernels/common/shared_memory.h"
#include "kernels/topk/bitonic_words.cuh"
#include "kernels/topk/topk_device.cuh"

namespace samebits::kernels::topk_device {
namespace {

constexpr int kRadixThreads = 512;
constexpr int kRadixWarps = kRadixThreads / 32;
constexpr int kDigitBits = 8;
constexpr int kBins = 1 << kDigitBits;
constexpr int kGatherItems = 16;  // elements per thread and tile in the index-ordered gather
constexpr int kReadBatch = 16;    // a thread's reads in flight while a row is read in passes
constexpr std::int64_t kKeyCacheMax =
    16384;  // rows up to this long keep their keys in shared memory
constexpr std::uint32_t kMinSortWords = 64;  // the sort works on whole 64-word warp segments
constexpr int kBucketBits = 12;
constexpr int kBuckets = 1 << kBucketBits;  // as many counters as the warp histograms hold
constexpr int kBucketsPerThread = kBuckets / kRadixThreads;
constexpr std::uint32_t kMaxBucket = 64;  // a fuller bucket (near-ties): CUB's radix sort instead

// Up to this many chosen elements are ordered by CUB's stable block radix sort on their keys
// (gathered in index order within each key, so stable means index order among equal keys);
// more by the bitonic sort of the 64-bit words.
constexpr int kRadixSortItems = 4;
constexpr std::uint32_t kRadixSortMax = kRadixThreads * kRadixSortItems;
using ChosenSort =
    cub::BlockRadixSort<std::uint32_t, kRadixThreads, kRadixSortItems, std::uint32_t>;

struct RadixShared {
  union {
    unsigned int warp_histograms[kRadixWarps][kBins];  // one per warp: no atomics across warps
    unsigned int buckets[kBuckets];  // zero when the passes end (each pass clears what it read)
    typename ChosenSort::TempStorage sort;
  };
  static_assert(kBuckets <= kRadixWarps * kBins, "the buckets reuse the cleared warp histograms");
  unsigned int histogram[kBins];
  std::uint32_t prefix;
  std::uint32_t need;      // how many of the elements matching `prefix` are still to be taken
  std::uint32_t count;     // how many elements match `prefix`
  std::uint32_t key_bits;  // the OR of every chosen key - prefix (which bits the sort must order)
  std::uint32_t warp_greater[kRadixWarps];  // per gather tile: each warp's elements above
  std::uint32_t warp_equal[kRadixWarps];    // the threshold's top bits, and equal to them
  std::uint32_t warp_buckets[kRadixWarps];  // the chosen counted into each warp's buckets
  std::uint32_t largest_bucket;             // the fullest bucket's count, when above kMaxBucket
};

// Step 3 of radix_select for words[0, sorted) (all of them at least `prefix`, up to
// kRadixSortMax): each word's slot is the count of smaller words. Words are counted into 4096
// buckets of the top kBucketBits bits of key - prefix (larger keys in lower buckets), so a word's
// slot is its bucket's start plus the smaller words in its bucket, compared one by one. Which
// thread's atomic wins a place inside a bucket cannot show: the slot depends only on the words.
// The words then move to their slots and go out in slot order (coalesced writes).
// Returns false, before writing anything, when a bucket holds more than kMaxBucket words (near
// ties would make the comparisons quadratic); every thread gets the same answer.
template <typename T>
__device__ bool order_by_buckets(unsigned long long* words, std::uint32_t sorted,
                                 std::uint32_t prefix, RadixShared& s, const T* row, T* row_values,
                                 std::int64_t* row_indices) {
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  unsigned long long word[kRadixSortItems];  // thread t holds words t, t + 512, ...
  std::uint32_t bucket[kRadixSortItems], place[kRadixSortItems], spread = 0;
#pragma unroll
  for (int u = 0; u < kRadixSortItems; ++u) {
    const std::uint32_t j = u * kRadixThreads + tid;
    word[u] = j < sorted ? words[j] : kEmptyWord;
    bucket[u] = j < sorted ? ~static_cast<std::uint32_t>(word[u] >> 32) - prefix : 0u;
    spread |= bucket[u];
  }
  spread = __reduce_or_sync(kFullMask, spread);
  if (lane == 0 && spread != 0) atomicOr(&s.key_bits, spread);
  __syncthreads();
  const int bits = 32 - __clz(static_cast<int>(s.key_bits));
  const int shift = bits > kBucketBits ? bits - kBucketBits : 0;
#pragma unroll
  for (int u = 0; u < kRadixSortItems; ++u) {
    bucket[u] = (kBuckets - 1) - (bucket[u] >> shift);
    if (u * kRadixThreads + tid < sorted) place[u] = atomicAdd(&s.buckets[bucket[u]], 1u);
  }
  __syncthreads();
  // Bucket starts: an exclusive scan of the counts, thread t holding buckets 8 t .. 8 t + 7.
  std::uint32_t counts[kBucketsPerThread], local = 0, largest = 0;
#pragma unroll
  for (int i = 0; i < kBucketsPerThread; ++i) {
    counts[i] = s.buckets[tid * kBucketsPerThread + i];
    local += counts[i];
    largest = counts[i] > largest ? counts[i] : largest;
  }
  std::uint32_t inclusive = local;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const std::uint32_t up = __shfl_up_sync(kFullMask, inclusive, d);
    if (lane >= d) inclusive += up;
  }
  largest = __reduce_max_sync(kFullMask, largest);
  if (lane == 31) s.warp_buckets[warp] = inclusive;
  if (lane == 0 && largest > kMaxBucket) atomicMax(&s.largest_bucket, largest);
  __syncthreads();
  if (s.largest_bucket > kMaxBucket) return false;
  std::uint32_t start = inclusive - local;
  for (int v = 0; v < warp; ++v) start += s.warp_buckets[v];
#pragma unroll
  for (int i = 0; i < kBucketsPerThread; ++i) {
    s.buckets[tid * kBucketsPerThread + i] = start;
    start += counts[i];
  }
  __syncthreads();
#pragma unroll
  for (int u = 0; u < kRadixSortItems; ++u) {
    if (u * kRadixThreads + tid < sorted) words[s.buckets[bucket[u]] + place[u]] = word[u];
  }
  __syncthreads();
  std::uint32_t slot[kRadixSortItems];
#pragma unroll
  for (int u = 0; u < kRadixSortItems; ++u) {
    if (u * kRadixThreads + tid >= sorted) continue;
    const std::uint32_t first = s.buckets[bucket[u]];
    const std::uint32_t end = bucket[u] + 1 < kBuckets ? s.buckets[bucket[u] + 1] : sorted;
    slot[u] = first;
    for (std::uint32_t p = first; p < end; ++p) slot[u] += words[p] < word[u];
  }
  __syncthreads();  // every rank is known: the words can move to their slots, then out in order
#pragma unroll
  for (int u = 0; u < kRadixSortItems; ++u) {
    if (u * kRadixThreads + tid < sorted) words[slot[u]] = word[u];
  }
  __syncthreads();
  for (std::uint32_t j = tid; j < sorted; j += kRadixThreads) {
    write_chosen(row, words[j], j, row_values, row_indices);
  }
  return true;
}

template <typename T>
__global__ void __launch_bounds__(kRadixThreads)
    radix_select_kernel(const T* values, Rows rows, std::int64_t k, std::uint32_t sort_words_n,
                        std::int64_t cache_capacity, T* out_values, std::int64_t* out_indices) {
  extern __shared__ unsigned long long words[];  // sort_words_n words, then the key cache
  __shared__ RadixShared s;
  std::uint32_t* cache = reinterpret_cast<std::uint32_t*>(words + sort_words_n);
  const std::int64_t r = blockIdx.x;
  const GuardedRow at = rows.row(r);
  if (at.flaws) {  // the whole block, before any barrier
    mark_row(rows, r, k, at.flaws, threadIdx.x, kRadixThreads, out_values, out_indices);
    return;
  }
  const T* row = values + at.start;
  const int length = static_cast<int>(at.length);  // < 2^31: checked at launch
  const std::uint32_t need_total = static_cast<std::uint32_t>(length < k ? length : k);
  T* row_values = out_values + r * k;
  std::int64_t* row_indices = out_indices + r * k;
  const int tid = threadIdx.x;
  if (tid == 0) {  // a barrier always follows before the first update (step 3)
    s.key_bits = 0;
    s.largest_bucket = 0;
  }
  const bool cached = length <= cache_capacity;  // else every pass reads the row again
  // Cached rows that the first pass will split (length > k) count that pass's digits as they
  // are loaded. Each warp clears its own histogram first (each pass's combine step then clears
  // what it read), so no barrier stands between the clearing and the counting.
  const bool first_counted_in_load = cached && length > k;
  unsigned int* const counts_of_warp = s.warp_histograms[tid >> 5];
  for (int b = tid & 31; b < kBins; b += 32) counts_of_warp[b] = 0;
  __syncwarp();
  if (cached) {
    for (int base = 0; base < length; base += kRadixThreads * kReadBatch) {
      std::uint32_t batch[kReadBatch];
      read_keys<kReadBatch, kRadixThreads>(row, base + tid, length, batch);
#pragma unroll
      for (int u = 0; u < kReadBatch; ++u) {
        const int i = base + u * kRadixThreads + tid;
        if (i < length) {
          cache[i] = batch[u];
          if (first_counted_in_load) atomicAdd(&counts_of_warp[batch[u] >> (32 - kDigitBits)], 1u);
        }
      }
    }
  }
  __syncthreads();
  auto key = [&](int i) { return cached ? cache[i] : key_at(row, i); };

  // 1. The k-th key, eight bits at a time from the top: after each pass, `prefix` holds the
  //    k-th key's top bits and `need` how many elements with exactly those top bits are taken.
  std::uint32_t prefix = 0, mask = 0, need = need_total;
  std::uint32_t matching = static_cast<std::uint32_t>(length);
  for (int shift = 32 - kDigitBits; shift >= 0 && matching != need && need > 0;
       shift -= kDigitBits) {
    const bool counted = first_counted_in_load && shift == 32 - kDigitBits;
    if (cached) {
      for (int i = tid; i < length && !counted; i += kRadixThreads) {
        const std::uint32_t k_i = cache[i];
        if ((k_i & mask) == prefix) atomicAdd(&counts_of_warp[(k_i >> shift) & (kBins - 1)], 1u);
      }
    } else {  // from global memory, kReadBatch reads at a time
      for (int base = 0; base < length; base += kRadixThreads * kReadBatch) {
        std::uint32_t batch[kReadBatch];
        read_keys<kReadBatch, kRadixThreads>(row, base + tid, length, batch);
#pragma unroll
        for (int u = 0; u < kReadBatch; ++u) {
          if (base + u * kRadixThreads + tid < length && (batch[u] & mask) == prefix)
            atomicAdd(&counts_of_warp[(batch[u] >> shift) & (kBins - 1)], 1u);
        }
      }
    }
    __syncthreads();
    for (int b = tid; b < kBins; b += kRadixThreads) {
      unsigned int total = 0;
      for (int w = 0; w < kRadixWarps; ++w) {
        total += s.warp_histograms[w][b];
        s.warp_histograms[w][b] = 0;  // ready for the next pass (two barriers before its adds)
      }
      s.histogram[b] = total;
    }
    __syncthreads();
    if (tid < 32) {
      // Lane l holds bins 255 - 8 l down to 248 - 8 l: the scan runs from the largest digit.
      constexpr int kPerLane = kBins / 32;
      unsigned int counts[kPerLane];
      unsigned int local = 0;
      for (int j = 0; j < kPerLane; ++j) {
        counts[j] = s.histogram[kBins - 1 - (tid * kPerLane + j)];
        local += counts[j];
      }
      unsigned int inclusive = local;
      for (int d = 1; d < 32; d <<= 1) {
        const unsigned int up = __shfl_up_sync(kFullMask, inclusive, d);
        if (tid >= d) inclusive += up;
      }
      unsigned int above = inclusive - local;
      if (above < need && need <= inclusive) {
        for (int j = 0; j < kPerLane; ++j) {
          if (above + counts[j] >= need) {
            const std::uint32_t digit = kBins - 1 - (tid * kPerLane + j);
            s.prefix = prefix | (digit << shift);
            s.need = need - above;
            s.count = counts[j];
            break;
          }
          above += counts[j];
        }
      }
    }
    __syncthreads();
    prefix = s.prefix;
    need = s.need;
    matching = s.count;
    mask |= static_cast<std::uint32_t>(kBins - 1) << shift;
    // No barrier here: the next pass rewrites s.prefix only two barriers later.
  }

  // 2. Gather in index order: elements whose top bits exceed `prefix`, then the first `need`
  //    of those equal to it. In a tile, warp w takes 512 consecutive elements, lane l those at
  //    l + 32 j (reads without bank conflicts); ballots number each warp's elements in index order
  //    and the warps' totals, through shared memory, place the warps one after another.
  const std::uint32_t greater_total = need_total - need;
  std::uint32_t greater_base = 0, equal_base = 0;
  const int lane = tid & 31, warp = tid >> 5;
  const unsigned lanes_below = (1u << lane) - 1;
  constexpr int kWarpSpan = 32 * kGatherItems;
  constexpr int kTile = kRadixThreads * kGatherItems;
  constexpr std::uint32_t kGreater = 1u << 31, kEqual = 1u << 30, kRank = kEqual - 1;
  for (int tile = 0; tile < length && need_total > 0; tile += kTile) {
    const int first = tile + warp * kWarpSpan + lane;
    std::uint32_t keys[kGatherItems], slot[kGatherItems];  // slot: kind and rank in the warp
    std::uint32_t greater_in_warp = 0, equal_in_warp = 0;
#pragma unroll
    for (int j = 0; j < kGatherItems; ++j) {  // (clamped reads: all in flight before the ballots)
      const int i = first + 32 * j;
      keys[j] = key(i < length ? i : length - 1);
    }
#pragma unroll
    for (int j = 0; j < kGatherItems; ++j) {
      const int i = first + 32 * j;
      if (i >= length) keys[j] = kNoElement;
      const std::uint32_t top = keys[j] & mask;
      const unsigned greater = __ballot_sync(kFullMask, i < length && top > prefix);
      const unsigned equal = __ballot_sync(kFullMask, i < length && top == prefix);
      slot[j] = (greater >> lane) & 1u
                    ? kGreater | (greater_in_warp + __popc(greater & lanes_below))
                : (equal >> lane) & 1u ? kEqual | (equal_in_warp + __popc(equal & lanes_below))
                                       : 0u;
      greater_in_warp += __popc(greater);
      equal_in_warp += __popc(equal);
    }
    if (lane == 0) {
      s.warp_greater[warp] = greater_in_warp;
      s.warp_equal[warp] = equal_in_warp;
    }
    __syncthreads();
    std::uint32_t greater_before = 0, equal_before = 0, greater_tile = 0, equal_tile = 0;
#pragma unroll
    for (int v = 0; v < kRadixWarps; ++v) {
      const std::uint32_t g = s.warp_greater[v], e = s.warp_equal[v];
      if (v < warp) {
        greater_before += g;
        equal_before += e;
      }
      greater_tile += g;
      equal_tile += e;
    }
#pragma unroll
    for (int j = 0; j < kGatherItems; ++j) {
      const std::uint32_t index = static_cast<std::uint32_t>(first + 32 * j);
      if (slot[j] & kGreater) {
        words[greater_base + greater_before + (slot[j] & kRank)] = sort_word(keys[j], index);
      } else if (slot[j] & kEqual) {
        const std::uint32_t e = equal_base + equal_before + (slot[j] & kRank);
        if (e < need) words[greater_total + e] = sort_word(keys[j], index);
      }
    }
    greater_base += greater_tile;
    equal_base += equal_tile;
    __syncthreads();  // the warp totals are rewritten by the next tile
  }

  // 3. Order the chosen. When the passes fixed every bit of the threshold, the elements equal to
  //    it share one key and were gathered in index order after all the others: they are in their
  //    final slots already, and only the greater ones need ordering.
  if (need_total <= kRadixSortMax) {
    const std::uint32_t sorted = mask == 0xffffffffu ? greater_total : need_total;
    if (order_by_buckets(words, sorted, prefix, s, row, row_values, row_indices)) {
      for (std::uint32_t j = sorted + tid; j < need_total; j += kRadixThreads) {
        write_chosen(row, words[j], j, row_values, row_indices);
      }
      for (std::int64_t j = need_total + tid; j < k; j += kRadixThreads) {
        write_slot(row, std::int64_t{-1}, row_values, row_indices, j);
      }
      return;
    }
  }
  //    Otherwise, up to kRadixSortMax: a stable sort of keys, descending, whose input is
  //    in index order wherever keys are equal (the elements above the threshold were gathered in
  //    index order, then those equal to it), so ties come out in index order.
  //    Every chosen key is at least `prefix` (its top bits are), so the sort orders key - prefix
  //    (the same order) on the low bits in which those differences differ from zero: one 4-bit
  //    pass fewer for every four bits the chosen keys share at the top. Missing slots hold 0,
  //    after every chosen element with the same sort key (the sort is stable).
  if (need_total <= kRadixSortMax) {
    std::uint32_t keys[kRadixSortItems], indices[kRadixSortItems], spread = 0;
#pragma unroll
    for (int u = 0; u < kRadixSortItems; ++u) {
      const std::uint32_t j = tid * kRadixSortItems + u;
      keys[u] = j < need_total ? ~static_cast<std::uint32_t>(words[j] >> 32) - prefix : 0u;
      indices[u] = j < need_total ? index_of_word(words[j]) : 0;
      spread |= keys[u];
    }
    spread = __reduce_or_sync(kFullMask, spread);
    if ((tid & 31) == 0 && spread != 0) atomicOr(&s.key_bits, spread);
    __syncthreads();
    const int end_bit = 32 - __clz(static_cast<int>(s.key_bits));
    // Striped result: thread t holds sorted positions t, t + 512, ...: coalesced writes.
    ChosenSort(s.sort).SortDescendingBlockedToStriped(keys, indices, 0, end_bit);
    // The chosen values are read back from the row all at once (clamped reads), then written.
    T chosen[kRadixSortItems];
#pragma unroll
    for (int u = 0; u < kRadixSortItems; ++u) chosen[u] = negative_infinity<T>();
    if (need_total > 0) {  // then row[0] exists
#pragma unroll
      for (int u = 0; u < kRadixSortItems; ++u) {
        const std::uint32_t j = u * kRadixThreads + tid;
        chosen[u] = row[j < need_total ? indices[u] : 0];
      }
    }
#pragma unroll
    for (int u = 0; u < kRadixSortItems; ++u) {
      const std::int64_t j = u * kRadixThreads + tid;
      if (j < k) {
        const bool present = j < need_total;
        row_values[j] = present ? chosen[u] : negative_infinity<T>();
        row_indices[j] = present ? static_cast<std::int64_t>(indices[u]) : std::int64_t{-1};
      }
    }
    for (std::int64_t j = kRadixSortMax + tid; j < k; j += kRadixThreads) {
      write_slot(row, std::int64_t{-1}, row_values, row_indices, j);
    }
    return;
  }
  // Larger selections: the bitonic sort of the (unique) words, padded to a power of two.
  for (std::uint32_t i = need_total + tid; i < sort_words_n; i += kRadixThreads) {
    words[i] = kEmptyWord;
  }
  __syncthreads();
  sort_words<kRadixThreads>(words, sort_words_n);
  for (std::int64_t j = tid; j < k; j += kRadixThreads) {
    const std::int64_t index =
        j < need_total ? static_cast<std::int64_t>(index_of_word(words[j])) : std::int64_t{-1};
    write_slot(row, index, row_values, row_indices, j);
  }
}

}  // namespace

template <typename T>
Status radix_select(const TopkProblem& p, cudaStream_t stream) {
  const Rows rows(p);
  std::uint32_t words = kMinSortWords;
  while (words < p.k) words <<= 1;
  const bool cached = p.max_length <= kKeyCacheMax;
  const std::size_t smem = std::size_t{words} * sizeof(unsigned long long) +
                           (cached ? static_cast<std::size_t>(p.max_length) * 4 : 0);
  const Status allowed = allow_dynamic_shared_memory(radix_select_kernel<T>, smem);
  if (allowed != Status::ok) return allowed;
  radix_select_kernel<T><<<static_cast<unsigned>(p.rows), kRadixThreads, smem, stream>>>(
      static_cast<const T*>(p.values), rows, p.k, words, cached ? p.max_length : 0,
      static_cast<T*>(p.out_values), p.out_indices);
  return launch_status();
}

template Status radix_select<float>(const TopkProblem&, cudaStream_t);
template Status radix_select<__half>(const TopkProblem&, cudaStream_t);
template Status radix_select<__nv_bfloat16>(const TopkProblem&, cudaStream_t);

}  // namespace samebits::kernels::topk_device
