// The arithmetic of one output element of samebits.linear / samebits.matmul, shared by the CUDA
// kernels and the CPU twin: which values meet in which float32 operation, in which order.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define SAMEBITS_LINEAR_HD __host__ __device__ __forceinline__
#else
#define SAMEBITS_LINEAR_HD inline
#endif

namespace samebits::kernels::linear_order {

// y[i][n] = x[i] . w[n] + bias[n] for x [M, K], w [N, K], bias [N] (matmul's b [K, N] is copied
// to its transpose [N, K] first: a copy, so the bits are those of linear on that copy).
//
// float32 inputs (CUDA cores, never TF32; the GPU kernel and the twin give the same bits):
//   acc    = +0
//   acc    = fma(x[i][k], w[n][k], acc)     for k = 0, 1, ..., K - 1 (one rounding each)
//   y      = acc + bias[n]                  (one float32 add; no add at all without a bias)
//   Exactly K fmas: nothing pads K, since fma(0, 0, -0) = +0 would change a -0 accumulator.
//
// bfloat16 / float16 inputs (tensor cores; float32 accumulator, output in the input dtype):
//   acc    = +0
//   acc    = MMA(acc, x[i][16s .. 16s + 15], w[n][same k])   for s = 0, 1, ..., ceil(K / 16) - 1
//            one MMA step: mma.sync m16n8k16 .f32 with float32 accumulators, whose 16 products
//            are exact and summed with acc by the hardware's own rule inside the step. The last
//            step of a K that is not a multiple of 16 reads zeros for k >= K (in x and in w):
//            their products are +0 or -0 (a negative x times +0), which leave a nonzero sum as it
//            is; a step always holds at least one real product, and the sign of an exact-zero
//            sum is the hardware's, fixed for the same operands.
//   y      = round_to_dtype(acc + float(bias[n]))             (one float32 add, then one
//            round-to-nearest-even to bf16 / f16; without a bias round_to_dtype(acc))
//   The contract for every kernel of this family, present and future: the same 16-wide steps,
//   ascending, onto one float32 accumulator from +0. Hopper's wgmma m64nNk16 gives the same bits
//   as mma.sync m16n8k16 for the same 16-wide step onto the same accumulator (probed on the H100,
//   kernels/attention/invariant_attention_order.h), whichever operand holds x and which w (the
//   16 products are the same); so the wgmma + TMA prefill and decode kernels give the mma.sync
//   kernel's bits, as long as none splits K (no split-K, no stream-K) or reorders the steps.
//
// Why this cannot depend on M, the row stride, the alignment or the row's position: the order
// above names only x[i], w[n], bias[n], K and the dtype. Every kernel of the family computes each
// output element as that one chain, with no split-K, and an MMA gives each output element its own
// arithmetic (a row of a tile never meets the other rows), so which rows share a tile, how many
// there are, where the tile starts and how big the grid is change no row's bits. That is why the
// launch may choose a kernel by M: on sm_90a builds, rows <= 64 take the decode kernel (64 rows of
// w on wgmma's 64-row side, every row of x on its N side, so that the grid spreads w over the GPU)
// and more rows the prefill kernel (128 rows of x by 256 rows of w); both wgmma + TMA, in
// linear_warpgroups.cu. tests/kernels/linear_paths_gpu_test.cpp holds both to the mma.sync
// kernel's bits (linear_tensor_cores.cu, still the kernel for K = 0 and other builds), and
// invariant_linear_gpu_test.cpp rows of M = 1 .. 65 to the same rows inside M = 8192. Rows the
// kernels cannot read with 16-byte copies or the copy engine (a row stride that is not a multiple
// of 8 elements, a misaligned base) are first copied to an aligned buffer by the binding: a copy
// changes no value.
//
// The CPU twin (invariant_linear_cpu.cpp): float32 exactly as above (std::fma, the GPU's bits).
// For bf16 / f16 it cannot know the tensor core's sum inside a step, so it models a step as
//   t      = double(acc); t = t + double(x[i][k]) * double(w[n][k])  for k = 16s .. min(16s + 15,
//            K - 1) ascending (products exact in float64); acc = float(t)  (one rounding a step)
//   (the padding's zero products are left out: adding +-0 to a nonzero float64 changes nothing,
//   and +0 and -0 are equal to the bound checks)
// and the bias add and output rounding as above; GPU and twin meet within linear_error_bound.h.

constexpr int kStep = 16;  // the k extent of one MMA step

constexpr std::int64_t mma_steps(std::int64_t k) {
  return (k + kStep - 1) / kStep;
}

// The mma.sync and float32 kernels' block tile (the warpgroup kernels' are in
// linear_warpgroups.cu); bits follow from the order above, not from a tile.
struct LinearTile {
  int rows;   // M extent of a block tile
  int cols;   // N extent of a block tile
  int depth;  // K extent staged in shared memory per iteration (a multiple of kStep for MMA)
};
constexpr LinearTile linear_tile_for(std::int64_t /*n*/, std::int64_t /*k*/, bool tensor_cores) {
  return tensor_cores ? LinearTile{128, 128, 32} : LinearTile{64, 64, 16};
}

// The last steps, shared by every kernel and the twin: the bias add (when there is one).
SAMEBITS_LINEAR_HD float add_bias(float acc, const float* bias_value) {
  return bias_value ? acc + *bias_value : acc;
}

}  // namespace samebits::kernels::linear_order
