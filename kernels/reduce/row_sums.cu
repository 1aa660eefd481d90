// row_kernel: one warp per reduction of up to four chunks, its chunk sums and their sum in one
// launch; the same adds as chunk_sums.cu's sums summed by a second launch, but no workspace.
#include "kernels/reduce/reduce_device.cuh"

namespace samebits::kernels::reduce_device {
namespace {

// One warp per reduction of at most kRowChunks chunks, start to finish in one launch: its chunk
// sums in chunk order, then the order's rule over them. Those sums are the first elements of the
// next level's one chunk, all in its lane 0 (lane 0 takes elements 0..3); every other lane of that
// chunk is empty, so the tree leaves lane 0's sum as the result (+0.0 added to a sum that is never
// -0.0 changes nothing). The same adds as chunk sums written out and summed by a second launch.
// kFirstStep: no row is longer than kStepSpan (a kernel of few registers for many short rows).
template <typename T, bool kFirstStep>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    row_kernel(const T* x, Source src, std::int64_t reductions, std::int64_t chunks_per_row,
               Sink sink) {
  const std::int64_t r = std::int64_t{blockIdx.x} * kWarpsPerBlock + threadIdx.x / 32;
  if (r >= reductions) return;  // whole warps leave together
  const int w = threadIdx.x % 32;
  const std::int64_t n = src.length(r);
  float lane0 = 0.0f;
  for (std::int64_t c = 0; c < chunks_per_row && c * kChunk < n; ++c) {
    lane0 = __fadd_rn(lane0, warp_chunk_sum<T, kFirstStep>(x, src, r, n, c, w));  // (thread 0)
  }
  if (w == 0) sink.write(r, lane0);
}

}  // namespace

template <typename T>
Status row_sums(const T* x, Source src, std::int64_t reductions, std::int64_t chunks_per_row,
                std::int64_t max_n, Sink sink, cudaStream_t stream) {
  const std::int64_t blocks = (reductions + kWarpsPerBlock - 1) / kWarpsPerBlock;
  if (blocks > kMaxBlocks) return Status::invalid_argument;
  // Rows of one step: float32 chunk sums (sum_chunk_sums); rows of data that short go to
  // medium_rows.cu, so 16-bit types skip that variant (the general one gives the same bits).
  if constexpr (sizeof(T) == 4) {
    if (max_n <= kStepSpan) {
      row_kernel<T, true><<<static_cast<unsigned>(blocks), kWarpsPerBlock * 32, 0, stream>>>(
          x, src, reductions, chunks_per_row, sink);
      return launched();
    }
  }
  row_kernel<T, false><<<static_cast<unsigned>(blocks), kWarpsPerBlock * 32, 0, stream>>>(
      x, src, reductions, chunks_per_row, sink);
  return launched();
}

template Status row_sums<float>(const float*, Source, std::int64_t, std::int64_t, std::int64_t,
                                Sink, cudaStream_t);
template Status row_sums<__half>(const __half*, Source, std::int64_t, std::int64_t, std::int64_t,
                                 Sink, cudaStream_t);
template Status row_sums<__nv_bfloat16>(const __nv_bfloat16*, Source, std::int64_t, std::int64_t,
                                        std::int64_t, Sink, cudaStream_t);

}  // namespace samebits::kernels::reduce_device
