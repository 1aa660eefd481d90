// chunk_kernel: the chunk sums of long reductions, one warp per (reduction, chunk of 4096), written
// to a workspace; invariant_reduce.cu sums them pass by pass until row_sums.cu can finish the rows.
#include "kernels/reduce/reduce_device.cuh"

namespace samebits::kernels::reduce_device {
namespace {

// One warp per (reduction r, chunk c): chunk c's sum goes to partial[r * chunks_per_row + c].
// Thread w holds lanes w + 32 m, so the tree's first levels stay in registers and the last five
// are shuffles (warp_chunk_sum).
template <typename T>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    chunk_kernel(const T* x, Source src, std::int64_t items, std::int64_t chunks_per_row,
                 float* partial) {
  const std::int64_t item = std::int64_t{blockIdx.x} * kWarpsPerBlock + threadIdx.x / 32;
  if (item >= items) return;  // whole warps leave together
  const int w = threadIdx.x % 32;
  const Quotient rc = divide(item, chunks_per_row);
  const float sum = warp_chunk_sum(x, src, rc.q, src.length(rc.q), rc.r, w);
  if (w == 0) partial[item] = sum;
}

}  // namespace

template <typename T>
Status chunk_sums(const T* x, Source src, std::int64_t reductions, std::int64_t chunks_per_row,
                  float* partial, cudaStream_t stream) {
  const std::int64_t items = reductions * chunks_per_row;
  const std::int64_t blocks = (items + kWarpsPerBlock - 1) / kWarpsPerBlock;
  if (blocks > kMaxBlocks) return Status::invalid_argument;
  chunk_kernel<T><<<static_cast<unsigned>(blocks), kWarpsPerBlock * 32, 0, stream>>>(
      x, src, items, chunks_per_row, partial);
  return launched();
}

template Status chunk_sums<float>(const float*, Source, std::int64_t, std::int64_t, float*,
                                  cudaStream_t);
template Status chunk_sums<__half>(const __half*, Source, std::int64_t, std::int64_t, float*,
                                   cudaStream_t);
template Status chunk_sums<__nv_bfloat16>(const __nv_bfloat16*, Source, std::int64_t, std::int64_t,
                                          float*, cudaStream_t);

}  // namespace samebits::kernels::reduce_device
