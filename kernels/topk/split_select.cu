// split_select, the top-k of long rows: a row's work spreads over segments of kSplitSegment
// elements, where radix_select gives a row one block (and one SM). One cooperative launch of
// persistent blocks, in phases separated by grid-wide barriers:
//   passes: up to three digit histograms (12, 12 and 8 bits) find the k-th key. Every segment of
//     a row adds its counts into the row's; the last segment to finish picks the digit. A row is
//     settled once the keys that share the digits found so far are all taken (no further pass);
//   choose: each segment writes its chosen words (key, index): every key above the k-th, and of
//     the keys equal to it the first in index order (or every key of a settled row's prefix);
//   order: each block sorts a run of 256 of a row's chosen words; then (k > 256) every word's
//     slot is its place in its run plus the words below it in the row's other runs.
// Integer sums and ranks of distinct words: neither the split nor any thread's timing shows in the
// result, which is the stable sort's first k, as radix_select's.
#include <cooperative_groups.h>

#include <algorithm>
#include <cub/block/block_scan.cuh>

#include "kernels/common/cuda_status.h"
#include "kernels/common/occupancy.h"
#include "kernels/topk/bitonic_words.cuh"
#include "kernels/topk/split_workspace.cuh"
#include "kernels/topk/topk_device.cuh"

namespace samebits::kernels::topk_device {
namespace {

namespace cg = cooperative_groups;

constexpr int kThreads = 256;
// Resident blocks per SM the registers must allow (64 a thread, a few bytes spilled). Measured on
// the H100 at B = 31 x 131072: 4 blocks (528) against 3 (396, no spill): 127 / 193 us against
// 148 / 218 at k = 64 / 2048, as a row's 32 segments fill more of the GPU at once.
constexpr int kBlocksPerSm = 4;
constexpr int kWarps = kThreads / 32;
constexpr int kItems = static_cast<int>(kSplitSegment) / kThreads;  // a thread's keys per segment
static_assert(kSplitSelectMaxK % kThreads == 0 &&
                  kSplitSelectMaxK * sizeof(unsigned long long) <= 48 * 1024,
              "the rank phase's words fit in a block's default shared memory");

// Pass p's digit: key bits [shift, shift + bits). 12 + 12 + 8 = 32.
__host__ __device__ constexpr int digit_bits(int pass) {
  return pass < 2 ? 12 : 8;
}
__host__ __device__ constexpr int digit_shift(int pass) {
  return pass == 0 ? 20 : pass == 1 ? 8 : 0;
}

// A thread's keys of a segment: element tid + i * kThreads for i < kItems (kNoElement past the
// row's end), all sixteen reads in flight at once.
template <typename T>
__device__ __forceinline__ void load_keys(const T* row, std::int64_t begin, int n,
                                          std::uint32_t (&keys)[kItems]) {
  if (n > 0) {
    read_keys<kItems, kThreads>(row + begin, static_cast<int>(threadIdx.x), n, keys);
  } else {
#pragma unroll
    for (int i = 0; i < kItems; ++i) keys[i] = kNoElement;
  }
}

struct Segment {
  std::int64_t r, index, begin, length;
  std::int64_t start;  // its row's, in values
  int n;               // its elements
};

// Work item `item` (row-major over rows x segments_per_row); false for a segment past its row's.
__device__ __forceinline__ bool segment_of(const Rows& rows, const Workspace& w, std::int64_t item,
                                           Segment& s) {
  s.r = item / w.segments_per_row;
  s.index = item % w.segments_per_row;
  const GuardedRow row = rows.row(s.r);  // (a flawed row: empty)
  s.length = row.length;
  s.start = row.start;
  if (s.index >= segments_of(s.length)) return false;
  s.begin = s.index * kSplitSegment;
  s.n = static_cast<int>(min(s.length - s.begin, kSplitSegment));
  return true;
}

// After pass `pass`, by the row's last segment to arrive: row r's digit from its histogram (read
// from the top bin down and cleared for the next pass), and whether the row is settled. Every
// pass reads all kRowBins bins (a narrower digit leaves the upper ones zero): coalesced into
// `staged` (shared memory), then sixteen consecutive bins a thread for the scan.
template <class Scan>
__device__ void pick_digit(const Workspace& w, std::int64_t r, std::int64_t k, int pass,
                           unsigned int* staged, typename Scan::TempStorage& scan) {
  constexpr int kPer = kRowBins / kThreads;
  const int tid = threadIdx.x;
  const RowState state = state_of(w, r);
  unsigned int* histogram = w.histogram + r * kRowBins;
  unsigned int read[kPer];
#pragma unroll
  for (int i = 0; i < kPer; ++i) read[i] = __ldcg(histogram + i * kThreads + tid);
#pragma unroll
  for (int i = 0; i < kPer; ++i) {
    staged[i * kThreads + tid] = read[i];
    histogram[i * kThreads + tid] = 0;
  }
  __syncthreads();
  unsigned int counts[kPer];  // counts[i]: bin kRowBins - 1 - (tid * kPer + i)
  const auto* mine = reinterpret_cast<const uint4*>(staged + (kRowBins - kPer * (tid + 1)));
#pragma unroll
  for (int q = 0; q < kPer / 4; ++q) {
    const uint4 v = mine[q];  // bins from kRowBins - kPer * (tid + 1) + 4 q up
    counts[kPer - 1 - 4 * q] = v.x;
    counts[kPer - 2 - 4 * q] = v.y;
    counts[kPer - 3 - 4 * q] = v.z;
    counts[kPer - 4 - 4 * q] = v.w;
  }
  unsigned int sum = 0;
#pragma unroll
  for (int i = 0; i < kPer; ++i) sum += counts[i];
  unsigned int above = 0, total = 0;  // keys in higher bins than this thread's; in all bins
  Scan(scan).ExclusiveSum(sum, above, total);
  RowState* out = w.state + r;
  const std::uint32_t need = pass == 0 ? static_cast<std::uint32_t>(k) : state.need;
  if (pass == 0 && total <= need) {  // at most k elements: take them all
    if (tid == 0) {
      out->settled = 1;
      out->chosen = total;
    }
  } else {
    const int bins = 1 << digit_bits(pass);
#pragma unroll
    for (int i = 0; i < kPer; ++i) {
      if (above < need && need <= above + counts[i]) {  // the need-th key's bin: one thread's
        const auto bin = static_cast<std::uint32_t>(kRowBins - 1 - (tid * kPer + i));
        const std::uint32_t left = need - above;
        const bool settled = left == counts[i];
        out->prefix = state.prefix | bin << digit_shift(pass);
        out->mask = state.mask | static_cast<std::uint32_t>(bins - 1) << digit_shift(pass);
        out->need = left;
        out->settled = settled ? 1u : 0u;
        if (pass == 0) out->chosen = static_cast<std::uint32_t>(k);
        if (!settled && pass + 1 < kPasses) atomicAdd(&w.remaining[pass], 1u);
      }
      above += counts[i];
    }
  }
  if (tid == 0) out->arrived = 0;
}

// Pass `pass` over one segment: the digit histogram of its keys that match the row's prefix, added
// into its row's (the last pass's also kept per segment); the row's last segment to arrive picks
// the digit. One shared-memory add per key: combining a warp's adds with __match_any_sync first
// was slower (B=31 x 131072 on the H100: 64 us for the first pass with it, 40 without;
// bench/RESULTS.md).
template <typename T, class Scan>
__device__ void segment_pass(const T* values, const Rows& rows, const Workspace& w,
                             const Segment& s, const RowState& state, std::int64_t k, int pass,
                             unsigned int* histogram, int& last, typename Scan::TempStorage& scan) {
  const int tid = threadIdx.x;
  const int shift = digit_shift(pass), bins = 1 << digit_bits(pass);
  std::uint32_t keys[kItems];
  load_keys(values + s.start, s.begin, s.n, keys);
  for (int b = tid; b < bins; b += kThreads) histogram[b] = 0;
  __syncthreads();
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    if (tid + i * kThreads < s.n && (keys[i] & state.mask) == state.prefix)
      atomicAdd(&histogram[(keys[i] >> shift) & static_cast<std::uint32_t>(bins - 1)], 1u);
  }
  __syncthreads();
  for (int b = tid; b < bins; b += kThreads) {
    const unsigned int mine = histogram[b];
    if (pass == kPasses - 1)
      w.segments[(s.r * w.segments_per_row + s.index) * kLastBins + b] = mine;
    if (mine) atomicAdd(&w.histogram[s.r * kRowBins + b], mine);
  }
  __threadfence();  // (this block's adds are visible before its arrival is)
  __syncthreads();
  if (tid == 0)
    last = atomicAdd(&w.state[s.r].arrived, 1u) == static_cast<unsigned>(segments_of(s.length) - 1);
  __syncthreads();
  if (last) {
    __threadfence();
    pick_digit<Scan>(w, s.r, k, pass, histogram, scan);
  }
  __syncthreads();  // (the block's next segment reuses `histogram`, `last` and `scan`)
}

// The block's words go to slots from the row's counter: one atomic add a block, for `count`
// words of this thread; returns the thread's first slot. Any slots will do: the rank phase orders
// the words. Ends with the block past its last use of `claims`.
struct Claims {
  unsigned int warp_total[kWarps];
  unsigned int first;
};
__device__ __forceinline__ std::uint32_t claim_slots(const Workspace& w, std::int64_t r,
                                                     std::uint32_t count, Claims& claims) {
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  std::uint32_t inclusive = count;  // this warp's words up to this lane's
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const std::uint32_t up = __shfl_up_sync(kFullMask, inclusive, d);
    if (lane >= d) inclusive += up;
  }
  if (lane == 31) claims.warp_total[warp] = inclusive;
  __syncthreads();
  if (tid == 0) {
    std::uint32_t total = 0;
#pragma unroll
    for (int v = 0; v < kWarps; ++v) total += claims.warp_total[v];
    claims.first = total ? atomicAdd(&w.state[r].taken, total) : 0u;
  }
  __syncthreads();
  std::uint32_t first = claims.first + inclusive - count;
#pragma unroll
  for (int v = 0; v < kWarps; ++v) first += v < warp ? claims.warp_total[v] : 0u;
  __syncthreads();
  return first;
}

// One segment's chosen words. A settled row: every key whose bits under the mask are at least the
// prefix (slots from the counter). Otherwise (all 32 bits found): every key above the k-th key
// (slots from the counter), and of the keys equal to it, those whose rank among the row's equal
// keys in index order is below `need` (slots k - need + rank).
template <typename T>
__device__ void segment_choose(const T* values, const Rows& rows, const Workspace& w,
                               const Segment& s, std::int64_t k,
                               unsigned int (&warp_equal)[kItems][kWarps],
                               unsigned int& equal_before, Claims& claims) {
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const RowState state = state_of(w, s.r);
  std::uint32_t keys[kItems];
  load_keys(values + s.start, s.begin, s.n, keys);
  unsigned long long* words = w.words + s.r * k;
  // Through the counter: every key of a settled row's prefix, or every key above the threshold.
  const bool settled = state.settled != 0;
  const std::uint32_t slots = settled ? state.chosen : static_cast<std::uint32_t>(k - state.need);
  auto counted = [&](int i) {
    const std::uint32_t key = keys[i];
    return settled ? tid + i * kThreads < s.n && (key & state.mask) >= state.prefix
                   : key > state.prefix;  // (never kNoElement)
  };
  std::uint32_t mine = 0;
#pragma unroll
  for (int i = 0; i < kItems; ++i) mine += counted(i) ? 1u : 0u;
  std::uint32_t slot = claim_slots(w, s.r, mine, claims);
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    if (!counted(i)) continue;
    if (slot < slots)
      words[slot] = sort_word(keys[i], static_cast<std::uint32_t>(s.begin + tid + i * kThreads));
    ++slot;
  }
  if (settled) return;
  const std::uint32_t threshold = state.prefix, need = state.need;
  // Equal keys in earlier segments: their last-pass histograms' bins of the threshold's digit,
  // read at once (a thread each) and summed.
  if (tid == 0) equal_before = 0;
  __syncthreads();
  unsigned int earlier_equal = 0;
  for (std::int64_t e = tid; e < s.index; e += kThreads)
    earlier_equal +=
        __ldcg(&w.segments[(s.r * w.segments_per_row + e) * kLastBins + (threshold & 0xffu)]);
  if (earlier_equal) atomicAdd(&equal_before, earlier_equal);
  unsigned equal[kItems];
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    equal[i] = __ballot_sync(kFullMask, keys[i] == threshold);  // (never kNoElement)
    if (lane == 0) warp_equal[i][warp] = __popc(equal[i]);
  }
  __syncthreads();
  unsigned int rank = equal_before;  // equal keys before item i's tile, row-wide
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    unsigned int earlier = 0, tile = 0;
#pragma unroll
    for (int v = 0; v < kWarps; ++v) {
      earlier += v < warp ? warp_equal[i][v] : 0u;
      tile += warp_equal[i][v];
    }
    if (equal[i] >> lane & 1u) {
      const unsigned int place = rank + earlier + __popc(equal[i] & ((1u << lane) - 1u));
      if (place < need)
        words[slots + place] =
            sort_word(keys[i], static_cast<std::uint32_t>(s.begin + tid + i * kThreads));
    }
    rank += tile;
  }
  __syncthreads();  // (the block's next segment reuses `warp_equal` and `equal_before`)
}

// The rank phases work on runs of kRun chosen words (a block's worth): first each run is sorted
// in place, then every word's slot is its place in its run plus, for each other run of the row,
// how many of that run's words are smaller (a binary search). The words are distinct, so these
// ranks are the sorted order.
constexpr int kRun = kThreads;

// Output slot j < k of row r: the chosen `word` at `slot` (j < chosen), else the -inf / -1 filler;
// a flawed row (read as empty) is marked instead.
template <typename T>
__device__ __forceinline__ void write_result(const T* values, const Rows& rows, std::int64_t r,
                                             std::int64_t k, std::int64_t j, std::uint32_t chosen,
                                             unsigned long long word, std::uint32_t slot,
                                             T* out_values, std::int64_t* out_indices) {
  const GuardedRow at = rows.row(r);
  const T* row = values + at.start;
  if (at.flaws)
    mark_row(rows, r, k, at.flaws, j, k, out_values, out_indices);  // slot j alone
  else if (j < chosen)
    write_chosen(row, word, slot, out_values + r * k, out_indices + r * k);
  else
    write_slot(row, -1, out_values, out_indices, r * k + j);
}

template <typename T>
__device__ void sort_run(const T* values, const Rows& rows, const Workspace& w, std::int64_t r,
                         std::int64_t run, std::int64_t k, unsigned long long* shared_words,
                         T* out_values, std::int64_t* out_indices) {
  const int tid = threadIdx.x;
  const std::uint32_t chosen = state_of(w, r).chosen;
  const std::int64_t j = run * kRun + tid;
  unsigned long long* words = w.words + r * k + run * kRun;
  shared_words[tid] = j < chosen ? __ldcg(words + tid) : kEmptyWord;
  __syncthreads();
  sort_words<kThreads>(shared_words, kRun);  // (ends with a barrier)
  if (k <= kRun) {                           // the row's only run: the place is the slot
    if (j < k)
      write_result(values, rows, r, k, j, chosen, shared_words[tid], static_cast<std::uint32_t>(j),
                   out_values, out_indices);
  } else if (j < chosen) {
    words[tid] = shared_words[tid];
  }
  __syncthreads();  // (the block's next run reuses `shared_words`)
}

template <typename T>
__device__ void rank_run(const T* values, const Rows& rows, const Workspace& w, std::int64_t r,
                         std::int64_t run, std::int64_t k, unsigned long long* shared_words,
                         T* out_values, std::int64_t* out_indices) {
  const int tid = threadIdx.x;
  const std::uint32_t chosen = state_of(w, r).chosen;
  const std::uint32_t runs = (chosen + kRun - 1) / kRun;
  const unsigned long long* words = w.words + r * k;
  for (std::uint32_t j = tid; j < runs * kRun; j += kThreads)  // (the last run padded)
    shared_words[j] = j < chosen ? __ldcg(words + j) : kEmptyWord;
  __syncthreads();
  const std::int64_t j = run * kRun + tid;
  if (j < k) {
    const unsigned long long word = j < chosen ? shared_words[j] : 0ull;
    std::uint32_t rank = tid;
    for (std::uint32_t other = 0; other < runs && j < chosen; ++other) {
      if (other == run) continue;
      const unsigned long long* sorted = shared_words + other * kRun;
      std::uint32_t below = 0;  // words of `sorted` below `word`
#pragma unroll
      for (std::uint32_t step = kRun / 2; step > 0; step >>= 1)
        below += sorted[below + step - 1] < word ? step : 0u;
      below += sorted[below] < word ? 1u : 0u;
      rank += below;
    }
    write_result(values, rows, r, k, j, chosen, word, rank, out_values, out_indices);
  }
  __syncthreads();  // (the block's next run reuses `shared_words`)
}

template <typename T>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    split_select_kernel(const T* values, Rows rows, std::int64_t k, Workspace w, T* out_values,
                        std::int64_t* out_indices) {
  // The passes' histogram, later the rank phase's words.
  extern __shared__ __align__(16) unsigned long long shared_words[];
  auto* histogram = reinterpret_cast<unsigned int*>(shared_words);
  __shared__ unsigned int warp_equal[kItems][kWarps];
  __shared__ unsigned int equal_before;
  __shared__ Claims claims;
  __shared__ int last;
  using Scan = cub::BlockScan<unsigned int, kThreads>;
  __shared__ typename Scan::TempStorage scan;
  const cg::grid_group grid = cg::this_grid();
  const std::int64_t blocks = gridDim.x;
  const std::int64_t items = w.rows * w.segments_per_row;
  // Zero the header, states and histograms.
  auto* cleared = w.remaining;
  const std::int64_t words = cleared_bytes(w.rows) / 4;
  for (std::int64_t i = blockIdx.x * kThreads + threadIdx.x; i < words; i += blocks * kThreads)
    cleared[i] = 0;
  grid.sync();
  for (int pass = 0; pass < kPasses; ++pass) {
    for (std::int64_t item = blockIdx.x; item < items; item += blocks) {
      Segment s;
      if (!segment_of(rows, w, item, s)) continue;
      const RowState state = state_of(w, s.r);
      if (state.settled) continue;
      segment_pass<T, Scan>(values, rows, w, s, state, k, pass, histogram, last, scan);
    }
    grid.sync();
    if (pass + 1 < kPasses && __ldcg(&w.remaining[pass]) == 0) break;  // (the same in every block)
  }
  for (std::int64_t item = blockIdx.x; item < items; item += blocks) {
    Segment s;
    if (segment_of(rows, w, item, s))
      segment_choose(values, rows, w, s, k, warp_equal, equal_before, claims);
  }
  grid.sync();
  const std::int64_t runs = (k + kRun - 1) / kRun;
  for (std::int64_t item = blockIdx.x; item < w.rows * runs; item += blocks)
    sort_run(values, rows, w, item / runs, item % runs, k, shared_words, out_values, out_indices);
  if (k <= kRun) return;  // (the same in every block)
  grid.sync();
  for (std::int64_t item = blockIdx.x; item < w.rows * runs; item += blocks)
    rank_run(values, rows, w, item / runs, item % runs, k, shared_words, out_values, out_indices);
}

}  // namespace

bool split_select_available() {
  int device = 0, cooperative = 0;
  return cudaGetDevice(&device) == cudaSuccess &&
         cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device) ==
             cudaSuccess &&
         cooperative != 0;
}

template <typename T>
Status split_select(const TopkProblem& p, cudaStream_t stream) {
  Workspace w = workspace_of(p);
  const auto* values = static_cast<const T*>(p.values);
  Rows rows(p);
  // (the rank phase holds a row's chosen words, padded to whole runs)
  const std::size_t smem = std::max<std::size_t>(
      kRowBins * sizeof(unsigned int), (p.k + kRun - 1) / kRun * kRun * sizeof(unsigned long long));
  auto* kernel = split_select_kernel<T>;
  // As many blocks as fit at once on the GPU (a cooperative launch's limit), no more than the
  // segments need.
  const int resident = resident_blocks(reinterpret_cast<const void*>(kernel), kThreads, smem);
  if (resident < 1) return cuda_failure(cudaGetLastError());
  const std::int64_t items = p.rows * w.segments_per_row;
  const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(items, resident));
  auto* out_values = static_cast<T*>(p.out_values);
  std::int64_t* out_indices = p.out_indices;
  std::int64_t k = p.k;
  void* args[] = {&values, &rows, &k, &w, &out_values, &out_indices};
  if (const cudaError_t e = cudaLaunchCooperativeKernel(
          reinterpret_cast<const void*>(kernel), dim3(blocks), dim3(kThreads), args, smem, stream);
      e != cudaSuccess)
    return cuda_failure(e);
  return Status::ok;
}

template Status split_select<float>(const TopkProblem&, cudaStream_t);
template Status split_select<__half>(const TopkProblem&, cudaStream_t);
template Status split_select<__nv_bfloat16>(const TopkProblem&, cudaStream_t);

}  // namespace samebits::kernels::topk_device

namespace samebits::kernels {

std::int64_t topk_split_workspace_bytes(const TopkProblem& p) {
  if (p.k < 1 || p.k > kSplitSelectMaxK || p.rows < 1 || p.rows > kSplitSelectMaxRows ||
      p.max_length < 0 || p.max_length > kMaxRowLength)
    return 0;
  const std::int64_t segments = topk_device::segments_of(p.max_length);
  return topk_device::cleared_bytes(p.rows) +
         p.rows * segments * topk_device::kLastBins *
             static_cast<std::int64_t>(sizeof(unsigned int)) +
         p.rows * p.k * static_cast<std::int64_t>(sizeof(unsigned long long));
}

}  // namespace samebits::kernels