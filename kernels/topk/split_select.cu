// split_select, the top-k of long rows: a row's work spreads over segments of kSplitSegment
// elements, where radix_select gives a row one block (and one SM). One cooperative launch of
// persistent blocks, in phases separated by grid-wide barriers: four passes of 8-bit digit
// histograms (every segment of a row adds its counts into the row's, then one block per row picks
// the digit) find the k-th key; each segment writes the keys above it and its share of the keys
// equal to it (the first in index order); one block per row sorts the k chosen (key, index) words.
// Integer sums and a sort of distinct words: neither the split nor any thread's timing shows in
// the result, which is the stable sort's first k, as radix_select's.
#include <cooperative_groups.h>

#include <algorithm>
#include <cub/block/block_scan.cuh>

#include "kernels/common/occupancy.h"
#include "kernels/topk/bitonic_words.cuh"
#include "kernels/topk/topk_device.cuh"

namespace samebits::kernels::topk_device {
namespace {

namespace cg = cooperative_groups;

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kBins = 256;  // one 8-bit digit, a bin per thread
constexpr int kPasses = 4;  // 32-bit keys
constexpr int kItems = static_cast<int>(kSplitSegment) / kThreads;  // a thread's keys per segment
static_assert(kBins == kThreads, "the chooser gives each thread one bin");

// A row's state between phases, zeroed first. After pass d: `prefix` holds the k-th key's top
// 8 (d + 1) bits, `need` how many keys matching them the first k still take. `all`: the row has
// fewer than k elements, so it takes every one (found at pass 0). `taken` counts the words of
// keys above the k-th written so far.
struct RowState {
  std::uint32_t prefix, need, taken, all;
};

// The workspace: rows states and histograms (zeroed by the launch), then per row and segment the
// last pass's histogram (so a segment knows how many keys equal to the k-th lie in earlier
// segments), then per row the k chosen words.
struct Workspace {
  RowState* state;
  unsigned int* histogram;    // [rows][kBins]
  unsigned int* segments;     // [rows][segments][kBins]
  unsigned long long* words;  // [rows][k]
  std::int64_t rows, segments_per_row;
};

// A row's segments (an empty row has one, empty, so that its state is settled too).
__host__ __device__ std::int64_t segments_of(std::int64_t length) {
  return length <= kSplitSegment ? 1 : (length + kSplitSegment - 1) / kSplitSegment;
}

__host__ __device__ std::int64_t cleared_bytes(std::int64_t rows) {
  return rows * static_cast<std::int64_t>(sizeof(RowState) + kBins * sizeof(unsigned int));
}

Workspace workspace_of(const TopkProblem& p) {
  auto* base = static_cast<unsigned char*>(p.workspace);
  Workspace w;
  w.rows = p.rows;
  w.segments_per_row = segments_of(p.max_length);
  w.state = reinterpret_cast<RowState*>(base);
  w.histogram = reinterpret_cast<unsigned int*>(base + p.rows * sizeof(RowState));
  w.segments = reinterpret_cast<unsigned int*>(base + cleared_bytes(p.rows));
  w.words = reinterpret_cast<unsigned long long*>(
      base + cleared_bytes(p.rows) + p.rows * w.segments_per_row * kBins * sizeof(unsigned int));
  return w;
}

// A thread's keys of a segment: element tid + i * kThreads for i < kItems (kNoElement past the
// row's end), all loads issued before any is used.
template <typename T>
__device__ __forceinline__ void load_keys(const T* row, std::int64_t begin, int n,
                                          std::uint32_t (&keys)[kItems]) {
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int at = static_cast<int>(threadIdx.x) + i * kThreads;
    keys[i] = at < n ? key_at(row, begin + at) : kNoElement;
  }
}

// The workspace as phases see it: written before the grid barrier by other blocks, so read from
// L2 (ld.cg), never a stale L1 line.
__device__ __forceinline__ RowState state_of(const Workspace& w, std::int64_t r) {
  const auto* at = reinterpret_cast<const uint4*>(w.state + r);
  const uint4 v = __ldcg(at);
  return {v.x, v.y, v.z, v.w};
}

struct Segment {
  std::int64_t r, index, begin, length;
  int n;  // its elements
};

// Work item `item` (row-major over rows x segments_per_row); false for a segment past its row's.
__device__ __forceinline__ bool segment_of(const Rows& rows, const Workspace& w, std::int64_t item,
                                           Segment& s) {
  s.r = item / w.segments_per_row;
  s.index = item % w.segments_per_row;
  s.length = rows.size(s.r);
  if (s.index >= segments_of(s.length)) return false;
  s.begin = s.index * kSplitSegment;
  s.n = static_cast<int>(min(s.length - s.begin, kSplitSegment));
  return true;
}

// Pass `pass` over one segment: the digit histogram of its keys that match the prefix so far,
// added into its row's (the last pass's also kept per segment). Adds of one bin within a warp are
// combined first (a pass's keys often share a few bins: exponents).
template <typename T>
__device__ void segment_pass(const T* values, const Rows& rows, const Workspace& w,
                             const Segment& s, std::uint32_t prefix, int pass,
                             unsigned int* histogram) {
  const int tid = threadIdx.x, lane = tid & 31;
  const int shift = 24 - 8 * pass;
  const std::uint32_t high = pass == 0 ? 0u : ~0u << (32 - 8 * pass);  // the prefix's bits
  std::uint32_t keys[kItems];
  load_keys(values + rows.start(s.r), s.begin, s.n, keys);
  histogram[tid] = 0;
  __syncthreads();
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const bool counted = tid + i * kThreads < s.n && (keys[i] & high) == prefix;
    const unsigned voters = __ballot_sync(kFullMask, counted);
    if (!counted) continue;
    const std::uint32_t bin = (keys[i] >> shift) & 0xffu;
    const unsigned peers = __match_any_sync(voters, bin);
    if (lane == __ffs(peers) - 1) atomicAdd(&histogram[bin], static_cast<unsigned>(__popc(peers)));
  }
  __syncthreads();
  const unsigned int mine = histogram[tid];
  if (pass == kPasses - 1) w.segments[(s.r * w.segments_per_row + s.index) * kBins + tid] = mine;
  if (mine) atomicAdd(&w.histogram[s.r * kBins + tid], mine);
  __syncthreads();  // (the block's next segment reuses `histogram`)
}

// After pass `pass`: row r's digit, from its histogram (then cleared for the next pass).
template <class Scan>
__device__ void pick_digit(const Workspace& w, std::int64_t r, std::int64_t k, int pass,
                           typename Scan::TempStorage& scan) {
  const int tid = threadIdx.x;
  const RowState state = state_of(w, r);
  if (state.all) return;
  unsigned int* bin = &w.histogram[r * kBins + (kBins - 1 - tid)];  // bins from the top down
  const unsigned int count = __ldcg(bin);
  *bin = 0;
  unsigned int above = 0, total = 0;  // keys in higher bins than this thread's; in all bins
  Scan(scan).ExclusiveSum(count, above, total);
  const std::uint32_t need = pass == 0 ? static_cast<std::uint32_t>(k) : state.need;
  if (pass == 0 && total < need) {  // fewer than k elements: take them all
    if (tid == 0) w.state[r].all = 1;
  } else if (above < need && need <= above + count) {  // the need-th key's bin: one thread's
    w.state[r].prefix =
        state.prefix | (static_cast<std::uint32_t>(kBins - 1 - tid) << (24 - 8 * pass));
    w.state[r].need = need - above;
  }
  __syncthreads();  // (the block's next row reuses `scan`)
}

// One segment's chosen words: every key above the k-th key (at slots taken by a counter: the
// final sort orders them) and, of the keys equal to it, those whose rank among the row's equal
// keys in index order is below `need` (slots k - need + rank).
template <typename T>
__device__ void segment_choose(const T* values, const Rows& rows, const Workspace& w,
                               const Segment& s, std::int64_t k,
                               unsigned int (&warp_equal)[kItems][kWarps],
                               unsigned int& equal_before) {
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const RowState state = state_of(w, s.r);
  const bool all = state.all != 0;
  const std::uint32_t threshold = all ? kNoElement : state.prefix;
  const std::uint32_t need = all ? 0u : state.need;
  const auto greater_slots = static_cast<std::uint32_t>(all ? s.length : k - need);
  std::uint32_t keys[kItems];
  load_keys(values + rows.start(s.r), s.begin, s.n, keys);
  // Equal keys in earlier segments: their last-pass histograms' bins of the threshold's digit,
  // read at once (a thread each) and summed.
  if (tid == 0) equal_before = 0;
  __syncthreads();
  unsigned int earlier_equal = 0;
  for (std::int64_t e = tid; e < s.index && !all; e += kThreads)
    earlier_equal +=
        __ldcg(&w.segments[(s.r * w.segments_per_row + e) * kBins + (threshold & 0xffu)]);
  if (earlier_equal) atomicAdd(&equal_before, earlier_equal);
  unsigned equal[kItems];
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    equal[i] = __ballot_sync(kFullMask, !all && keys[i] == threshold && keys[i] != kNoElement);
    if (lane == 0) warp_equal[i][warp] = __popc(equal[i]);
  }
  __syncthreads();
  unsigned int rank = equal_before;  // equal keys before item i's tile, row-wide
  unsigned long long* words = w.words + s.r * k;
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const std::uint32_t key = keys[i];
    const auto index = static_cast<std::uint32_t>(s.begin + tid + i * kThreads);
    const unsigned greater = __ballot_sync(kFullMask, key > threshold);  // (never kNoElement)
    if (greater) {
      std::uint32_t first = 0;
      if (lane == 0) first = atomicAdd(&w.state[s.r].taken, static_cast<unsigned>(__popc(greater)));
      first = __shfl_sync(kFullMask, first, 0);
      if (greater >> lane & 1u) {
        const std::uint32_t slot = first + __popc(greater & ((1u << lane) - 1u));
        if (slot < greater_slots) words[slot] = sort_word(key, index);
      }
    }
    unsigned int earlier = 0, tile = 0;
#pragma unroll
    for (int v = 0; v < kWarps; ++v) {
      earlier += v < warp ? warp_equal[i][v] : 0u;
      tile += warp_equal[i][v];
    }
    if (equal[i] >> lane & 1u) {
      const unsigned int place = rank + earlier + __popc(equal[i] & ((1u << lane) - 1u));
      if (place < need) words[greater_slots + place] = sort_word(key, index);
    }
    rank += tile;
  }
  __syncthreads();  // (the block's next segment reuses `warp_equal`)
}

// Row r's chosen words sorted; slot j < k of its output the j-th (the -inf / -1 filler past a
// short row's elements).
template <typename T>
__device__ void sort_row(const T* values, const Rows& rows, const Workspace& w, std::int64_t r,
                         std::int64_t k, std::uint32_t sort_n, unsigned long long* sorted,
                         T* out_values, std::int64_t* out_indices) {
  const int tid = threadIdx.x;
  const RowState state = state_of(w, r);
  const auto chosen = static_cast<std::uint32_t>(state.all ? rows.size(r) : k);
  const unsigned long long* words = w.words + r * k;
  for (std::uint32_t j = tid; j < sort_n; j += kThreads)
    sorted[j] = j < chosen ? __ldcg(words + j) : kEmptyWord;
  __syncthreads();
  sort_words<kThreads>(sorted, sort_n);
  const T* row = values + rows.start(r);
  for (std::int64_t j = tid; j < k; j += kThreads) {
    if (j < chosen)
      write_chosen(row, sorted[j], static_cast<std::uint32_t>(j), out_values + r * k,
                   out_indices + r * k);
    else
      write_slot(row, -1, out_values, out_indices, r * k + j);
  }
  __syncthreads();  // (the block's next row reuses `sorted`)
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    split_select_kernel(const T* values, Rows rows, std::int64_t k, Workspace w,
                        std::uint32_t sort_n, T* out_values, std::int64_t* out_indices) {
  extern __shared__ unsigned long long sorted[];  // sort_n words
  __shared__ unsigned int histogram[kBins];
  __shared__ unsigned int warp_equal[kItems][kWarps];
  __shared__ unsigned int equal_before;
  using Scan = cub::BlockScan<unsigned int, kThreads>;
  __shared__ typename Scan::TempStorage scan;
  const cg::grid_group grid = cg::this_grid();
  const std::int64_t blocks = gridDim.x;
  const std::int64_t items = w.rows * w.segments_per_row;
  // Zero the states and histograms.
  auto* cleared = reinterpret_cast<unsigned int*>(w.state);
  const std::int64_t words = cleared_bytes(w.rows) / 4;
  for (std::int64_t i = blockIdx.x * kThreads + threadIdx.x; i < words; i += blocks * kThreads)
    cleared[i] = 0;
  grid.sync();
  for (int pass = 0; pass < kPasses; ++pass) {
    for (std::int64_t item = blockIdx.x; item < items; item += blocks) {
      Segment s;
      if (!segment_of(rows, w, item, s)) continue;
      const RowState state = state_of(w, s.r);
      if (state.all) continue;  // (a short row, settled at pass 0)
      segment_pass(values, rows, w, s, state.prefix, pass, histogram);
    }
    grid.sync();
    for (std::int64_t r = blockIdx.x; r < w.rows; r += blocks)
      pick_digit<Scan>(w, r, k, pass, scan);
    grid.sync();
  }
  for (std::int64_t item = blockIdx.x; item < items; item += blocks) {
    Segment s;
    if (segment_of(rows, w, item, s))
      segment_choose(values, rows, w, s, k, warp_equal, equal_before);
  }
  grid.sync();
  for (std::int64_t r = blockIdx.x; r < w.rows; r += blocks)
    sort_row(values, rows, w, r, k, sort_n, sorted, out_values, out_indices);
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
  Rows rows{p.offsets, p.row_stride, p.length};
  std::uint32_t sort_n = 64;
  while (sort_n < p.k) sort_n <<= 1;
  const std::size_t smem = sort_n * sizeof(unsigned long long);
  auto* kernel = split_select_kernel<T>;
  if (smem > 48 * 1024 && cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(smem)) != cudaSuccess)
    return Status::cuda_error;
  // As many blocks as fit at once on the GPU (a cooperative launch's limit), no more than the
  // segments need.
  const int resident = resident_blocks(reinterpret_cast<const void*>(kernel), kThreads, smem);
  if (resident < 1) return Status::cuda_error;
  const std::int64_t items = p.rows * w.segments_per_row;
  const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(items, resident));
  auto* out_values = static_cast<T*>(p.out_values);
  std::int64_t* out_indices = p.out_indices;
  std::int64_t k = p.k;
  void* args[] = {&values, &rows, &k, &w, &sort_n, &out_values, &out_indices};
  if (cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), dim3(blocks),
                                  dim3(kThreads), args, smem, stream) != cudaSuccess)
    return Status::cuda_error;
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
         p.rows * segments * topk_device::kBins * static_cast<std::int64_t>(sizeof(unsigned int)) +
         p.rows * p.k * static_cast<std::int64_t>(sizeof(unsigned long long));
}

}  // namespace samebits::kernels
