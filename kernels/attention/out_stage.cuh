// A warp's 16 rows of out on their way from the MMA accumulator layout (4-byte pairs, a row spread
// over a quad) to global memory as whole 16-byte chunks, through a stage in shared memory.
#pragma once

#include <cstdint>

namespace samebits::kernels::out_stage {

// A warp's stage: 16 rows of kPassChunks 16-byte chunks (64 columns: a pass), a row kRowBytes
// apart: 16 bytes more than a row holds, so that the eight rows an stmatrix writes, or a load
// reads, at one chunk fall in eight bank groups, and each thread's addresses are one register and
// constant offsets. A head dim of 128 goes through in two passes: 18 KB for the block's eight
// warps rather than 34 KB, which took a block past the 196 KB step of the SM's carveout and was
// 1 % slower at 1 x 16k (H200, stop 53).
constexpr int kPassChunks = 8;
constexpr int kRowBytes = kPassChunks * 16 + 16;
constexpr int kWarpBytes = 16 * kRowBytes;

// The thread's rows lane / 4 and lane / 4 + 8 of the warp's 16 (pairs[k][nb]: columns
// nb * 8 + 2 (lane % 4) and + 1 of row k, as the MMA accumulators hold them) to out[k], 16-byte
// aligned (nullptr: not stored). Per pass, stmatrix writes the warp's rows into the stage, two
// chunks of 16 rows at a time; then each thread loads chunks lane % 4 and lane % 4 + 4 of its own
// rows and stores them. That is NB / 2 each of stmatrix, loads and 16-byte stores in place of
// 2 NB 4-byte stores (each of which touched eight rows, with an address of its own). The bytes
// stored are the same.
template <int NB>
__device__ __forceinline__ void store_rows(std::uint32_t stage, int lane,
                                           const std::uint32_t (&pairs)[2][NB],
                                           std::uint16_t* const (&out)[2]) {
  static_assert(NB % kPassChunks == 0, "whole passes of 64 columns");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // Lanes 8 m to 8 m + 7 name the rows of matrix m: rows 8 (m % 2) on, chunk nb + m / 2.
  const int m = lane / 8;
  const std::uint32_t named = stage + ((m % 2) * 8 + lane % 8) * kRowBytes + (m / 2) * 16;
  const std::uint32_t own = stage + (lane / 4) * kRowBytes + (lane % 4) * 16;
#pragma unroll
  for (int pass = 0; pass < NB / kPassChunks; ++pass) {
    const int c0 = pass * kPassChunks;
    __syncwarp();  // (the warp's loads from its stage, the last time, are done)
#pragma unroll
    for (int nb = 0; nb < kPassChunks; nb += 2) {
      asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(
                       named + nb * 16),
                   "r"(pairs[0][c0 + nb]), "r"(pairs[1][c0 + nb]), "r"(pairs[0][c0 + nb + 1]),
                   "r"(pairs[1][c0 + nb + 1])
                   : "memory");
    }
    __syncwarp();
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      if (!out[k]) continue;
#pragma unroll
      for (int i = 0; i < kPassChunks / 4; ++i) {
        const int c = lane % 4 + 4 * i;
        uint4 v;
        asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "r"(own + 8 * k * kRowBytes + 64 * i)
                     : "memory");
        *reinterpret_cast<uint4*>(out[k] + (c0 + c) * 8) = v;
      }
    }
  }
#else
  __trap();  // (a stage is given on Hopper only)
#endif
}

}  // namespace samebits::kernels::out_stage
