// The attention kernels' building blocks run on the GPU for the tests: the epilogue's RowQuotient
// against IEEE division over 2^32 pairs drawn across its range, and the edges of that range (for
// one value and for a MagnitudeSpan of several).
#include <algorithm>
#include <cstdint>

#include "kernels/attention/attention_tensor_cores.h"
#include "kernels/attention/row_quotient.cuh"
#include "kernels/common/cuda_status.h"

namespace samebits::kernels {
namespace {

using tensor_core::RowQuotient;

// A 64-bit mix of the pair's number (splitmix64's finalizer): where in the range a pair falls.
__device__ std::uint64_t mix(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The range's edges: {value bits, usable as l, in range as a}.
struct Edge {
  std::uint32_t bits;
  bool usable, in_range;
};
__constant__ Edge kEdges[] = {
    {0x2f800000u, true, true},    // 2^-32
    {0x2f7fffffu, false, true},   // just below 2^-32
    {0x4f7fffffu, true, true},    // just below 2^32
    {0x4f800000u, false, true},   // 2^32
    {0x21800000u, false, true},   // 2^-60
    {0x217fffffu, false, false},  // just below 2^-60
    {0x5d7fffffu, false, true},   // just below 2^60
    {0x5d800000u, false, false},  // 2^60
    {0xa1800000u, false, true},   // -2^-60
    {0xdd7fffffu, false, true},   // just above -2^60
    {0xaf800000u, false, true},   // -2^-32
    {0x00000000u, false, false},  // +0
    {0x80000000u, false, false},  // -0
    {0x00000001u, false, false},  // the smallest subnormal
    {0x7f800000u, false, false},  // infinity
    {0x7fc00000u, false, false},  // NaN
    {0x3f800000u, true, true},    // 1
};

// counts[0]: pairs whose RowQuotient differs from __fdiv_rn; counts[1]: pairs whose quotient
// without the correction step differs (the control: the comparison can fail); counts[2]: pairs
// compared; counts[3]: edges classified otherwise than kEdges says.
__global__ void row_quotient_kernel(unsigned long long* counts) {
  const std::uint64_t total = std::uint64_t{1} << 32;
  unsigned long long wrong = 0, uncorrected = 0, compared = 0;
  for (std::uint64_t b = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; b < total;
       b += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t h = mix(b);
    // l over [2^-32, 2^32), a over [2^-60, 2^60) of either sign, uniform in their bits.
    const float l = __uint_as_float(0x2f800000u + static_cast<std::uint32_t>(h) % 0x20000000u);
    const float a =
        __uint_as_float((0x21800000u + static_cast<std::uint32_t>(h >> 32) % 0x3c000000u) |
                        (static_cast<std::uint32_t>(h >> 31) & 0x80000000u));
    if (!RowQuotient::usable(l) || !RowQuotient::in_range(a)) continue;
    const RowQuotient q(l);
    const float want = __fdiv_rn(a, l);
    wrong += __float_as_uint(q.of(a)) != __float_as_uint(want);
    uncorrected += __float_as_uint(__fmul_rn(a, q.r)) != __float_as_uint(want);
    ++compared;
  }
  if (blockIdx.x == 0 && threadIdx.x < sizeof(kEdges) / sizeof(Edge)) {
    const Edge e = kEdges[threadIdx.x];
    const float v = __uint_as_float(e.bits);
    if (RowQuotient::usable(v) != e.usable || RowQuotient::in_range(v) != e.in_range)
      atomicAdd(&counts[3], 1ull);
    // One span over the edge alone, and beside 1 and -2^59 either side (in range both): the
    // span is in range exactly when the edge is.
    tensor_core::MagnitudeSpan alone, before, after;
    alone.add(v);
    before.add(1.0f);
    before.add(-0x1p59f);
    before.add(v);
    after.add(v);
    after.add(1.0f);
    after.add(-0x1p59f);
    if (alone.in_range() != e.in_range || before.in_range() != e.in_range ||
        after.in_range() != e.in_range)
      atomicAdd(&counts[3], 1ull);
  }
  atomicAdd(&counts[0], wrong);
  atomicAdd(&counts[1], uncorrected);
  atomicAdd(&counts[2], compared);
}

}  // namespace

Status attention_row_quotient_mismatches_cuda(unsigned long long* counts, cudaStream_t stream) {
  if (!counts) return Status::invalid_argument;
  row_quotient_kernel<<<4096, 256, 0, stream>>>(counts);
  return launch_status();
}

}  // namespace samebits::kernels
