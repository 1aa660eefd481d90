// short_kernel: one warp per reduction of at most 128 elements, one lane per thread; the lanes
// 32..255 of the order are empty there, so only the tree's last five levels (shuffles) remain.
#include "kernels/reduce/reduce_device.cuh"

namespace samebits::kernels::reduce_device {
namespace {

// One warp per reduction of n <= 128: thread t is lane t (elements 4t..4t+3); lanes 32..255 are
// empty, so the tree's levels 128..32 change nothing and only the shuffles remain.
template <typename T>
__global__ void short_kernel(const T* x, Source src, std::int64_t reductions, Sink sink) {
  const std::int64_t r = (std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  const int t = threadIdx.x % 32;
  if (r >= reductions) return;  // whole warps leave together
  const float sum = warp_tree(lane_sum(x + src.start(r), src.stride_length, src.length(r), t));
  if (t == 0) sink.write(r, sum);
}

}  // namespace

template <typename T>
Status short_rows(const T* x, Source src, std::int64_t reductions, Sink sink, cudaStream_t stream) {
  const std::int64_t blocks = (reductions + kWarpsPerBlock - 1) / kWarpsPerBlock;
  if (blocks > kMaxBlocks) return Status::invalid_argument;
  short_kernel<T>
      <<<static_cast<unsigned>(blocks), kWarpsPerBlock * 32, 0, stream>>>(x, src, reductions, sink);
  return launched();
}

template Status short_rows<float>(const float*, Source, std::int64_t, Sink, cudaStream_t);
template Status short_rows<__half>(const __half*, Source, std::int64_t, Sink, cudaStream_t);
template Status short_rows<__nv_bfloat16>(const __nv_bfloat16*, Source, std::int64_t, Sink,
                                          cudaStream_t);

}  // namespace samebits::kernels::reduce_device
