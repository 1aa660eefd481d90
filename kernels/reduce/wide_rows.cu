// wide_row_kernel: few rows of two to four chunks (up to 16384 elements), a block per row and a
// thread per lane of each chunk, the chunk sums and their sum in one launch: no workspace.
#include "kernels/reduce/reduce_device.cuh"

namespace samebits::kernels::reduce_device {
namespace {

// Lane t of a chunk of len <= 4096 elements: its up to 16 elements p = 1024 k + 4 t + j (k, then
// j) added from +0.0, only p < len. The four reads (one 4-element vector each where the chunk is
// contiguous and aligned) are issued before the first add.
template <typename T>
__device__ __forceinline__ float chunk_lane(const T* chunk, std::int64_t stride, std::int64_t len,
                                            int t) {
  const bool vector = vector_ready(chunk, stride);
  float v[kSteps][kVector];
#pragma unroll
  for (int k = 0; k < kSteps; ++k) {
    const std::int64_t p = std::int64_t{k} * kStepSpan + kVector * t;
    if (vector && p + kVector <= len) {
      load4_aligned(chunk + p, v[k]);
    } else {
#pragma unroll
      for (int j = 0; j < kVector; ++j)
        v[k][j] = p + j < len ? to_float(chunk[(p + j) * stride]) : 0.0f;
    }
  }
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < kSteps; ++k) {
#pragma unroll
    for (int j = 0; j < kVector; ++j) {
      if (std::int64_t{k} * kStepSpan + kVector * t + j < len) acc = __fadd_rn(acc, v[k][j]);
    }
  }
  return acc;
}

// Block r is reduction r; thread c * 256 + t is lane t of chunk c (Chunks >= the row's chunks).
// The lane sums go through shared memory; warp 0 of each chunk runs the tree as warp_chunk_sum
// does (thread w holds lanes w + 32 m: levels 128, 64, 32 in registers, 16..1 by shuffles). The
// row's result is then its chunk sums added from +0.0 in chunk order: with at most four chunks
// they are the next level's elements 0..3, all in its lane 0, every other lane of it empty, so
// its tree adds +0.0 to a sum that is never -0.0 and leaves lane 0's bits (as row_sums.cu).
template <typename T, int Chunks>
__global__ void __launch_bounds__(Chunks* kLanes)
    wide_row_kernel(const T* x, Source src, Sink sink) {
  __shared__ float lanes[Chunks][kLanes];
  __shared__ float chunk_sums[Chunks];
  const std::int64_t r = blockIdx.x;
  const int c = threadIdx.x / kLanes, t = threadIdx.x % kLanes;
  const std::int64_t n = src.length(r);
  const std::int64_t begin = std::int64_t{c} * kChunk;
  float lane = 0.0f;  // an empty lane (a chunk past the row's end) holds +0.0
  if (begin < n) {
    const std::int64_t len = n - begin < kChunk ? n - begin : kChunk;
    lane = chunk_lane(x + src.start(r) + begin * src.stride_length, src.stride_length, len, t);
  }
  lanes[c][t] = lane;
  __syncthreads();
  if (t < 32) {
    float acc[kLanesPerThread];
#pragma unroll
    for (int m = 0; m < kLanesPerThread; ++m) acc[m] = lanes[c][t + 32 * m];
#pragma unroll
    for (int m = 0; m < 4; ++m) acc[m] = __fadd_rn(acc[m], acc[m + 4]);  // s = 128
#pragma unroll
    for (int m = 0; m < 2; ++m) acc[m] = __fadd_rn(acc[m], acc[m + 2]);  // s = 64
    acc[0] = __fadd_rn(acc[0], acc[1]);                                  // s = 32
    const float sum = warp_tree(acc[0]);                                 // s = 16 .. 1
    if (t == 0) chunk_sums[c] = sum;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
#pragma unroll
    for (int k = 0; k < Chunks; ++k) {
      if (std::int64_t{k} * kChunk < n) total = __fadd_rn(total, chunk_sums[k]);
    }
    sink.write(r, total);
  }
}

template <typename T, int Chunks>
Status launch(const T* x, Source src, std::int64_t reductions, Sink sink, cudaStream_t stream) {
  if (reductions > kMaxBlocks) return Status::invalid_argument;
  wide_row_kernel<T, Chunks>
      <<<static_cast<unsigned>(reductions), Chunks * kLanes, 0, stream>>>(x, src, sink);
  return launched();
}

}  // namespace

template <typename T>
Status wide_rows(const T* x, Source src, std::int64_t reductions, std::int64_t max_n, Sink sink,
                 cudaStream_t stream) {
  const std::int64_t c = chunks(max_n);
  if (c > kRowChunks) return Status::invalid_argument;
  if (c == 1) return launch<T, 1>(x, src, reductions, sink, stream);
  if (c == 2) return launch<T, 2>(x, src, reductions, sink, stream);
  return launch<T, 4>(x, src, reductions, sink, stream);  // three chunks: one block of lanes idle
}

template Status wide_rows<float>(const float*, Source, std::int64_t, std::int64_t, Sink,
                                 cudaStream_t);
template Status wide_rows<__half>(const __half*, Source, std::int64_t, std::int64_t, Sink,
                                  cudaStream_t);
template Status wide_rows<__nv_bfloat16>(const __nv_bfloat16*, Source, std::int64_t, std::int64_t,
                                         Sink, cudaStream_t);

}  // namespace samebits::kernels::reduce_device
