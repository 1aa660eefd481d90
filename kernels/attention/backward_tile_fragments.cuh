// The tensor-core backward's shared-memory tiles ([rows][D], swizzled like the forward's) and
// the MMA operands it reads from them: a 16-row A block, 16 rows as B, 16 rows as B transposed.
#pragma once

#include <cstdint>

#include "kernels/common/mma_instructions.cuh"

namespace samebits::kernels::backward_tiles {

constexpr int kWarps = 8, kThreads = kWarps * 32;
constexpr int kRows = 64;                // rows of a streamed tile (queries for dK/dV, keys for dQ)
constexpr int kBlockRows = 16 * kWarps;  // a block's own rows (keys, or queries), 16 per warp

// A [Rows][D] tile of 16-bit elements keeps 16-byte chunk c of row r at chunk c ^ (r & 7) of the
// row, so the eight rows one ldmatrix reads at one chunk fall in eight bank groups.
template <int D, int Rows = kRows>
struct Tile {
  static constexpr int kChunks = D / 8, kRowBytes = kChunks * 16, kBytes = Rows * kRowBytes;

  // Rows [0, Rows) from global memory: offset(r) is row r's first element, or -1 for a missing row
  // (zeros). Asynchronous: commit_copies() and wait_copies() order it.
  template <class Offset>
  __device__ static void load(std::uint32_t dst, const void* src, Offset offset, int tid) {
    const auto* base = static_cast<const std::uint16_t*>(src);
#pragma unroll 4
    for (int idx = tid; idx < Rows * kChunks; idx += kThreads) {
      const int r = idx / kChunks, c = idx % kChunks;
      const std::int64_t at = offset(r);
      tensor_core::copy16(dst + tensor_core::swizzled(r, c, kChunks) * 16,
                          base + (at < 0 ? 0 : at + c * 8), at >= 0);
    }
  }

  // The A operand of rows [row0, row0 + 16) and columns [16 kc, 16 kc + 16) (row0 % 8 == 0; the
  // XOR with kc << 5 is the swizzle of chunk 2 kc, rows being 2^k bytes).
  __device__ static void a(std::uint32_t (&r)[4], std::uint32_t tile, int row0, int lane, int kc) {
    const std::uint32_t at =
        (row0 + lane % 8 + 8 * ((lane / 8) % 2)) * kRowBytes + (((lane / 16) ^ (lane % 8)) << 4);
    tensor_core::ldmatrix(r, tile + (at ^ (kc << 5)));
  }
  // Rows [n0, n0 + 16) as the B operand (n = row, k = column) of two MMAs over columns
  // [16 kc, 16 kc + 16): r[0], r[1] for rows n0..n0+7, r[2], r[3] for n0+8..n0+15.
  __device__ static void b(std::uint32_t (&r)[4], std::uint32_t tile, int n0, int lane, int kc) {
    const std::uint32_t at =
        (n0 + lane % 8 + 8 * (lane / 16)) * kRowBytes + ((((lane / 8) % 2) ^ (lane % 8)) << 4);
    tensor_core::ldmatrix(r, tile + (at ^ (kc << 5)));
  }
  // Rows [k0, k0 + 16) as the B operand (k = row, n = column) of two MMAs over columns
  // [16 np, 16 np + 16): r[0], r[1] for columns 16 np..+7, r[2], r[3] for the next 8.
  __device__ static void bt(std::uint32_t (&r)[4], std::uint32_t tile, int k0, int lane, int np) {
    const std::uint32_t at =
        (k0 + lane % 8 + 8 * ((lane / 8) % 2)) * kRowBytes + (((lane / 16) ^ (lane % 8)) << 4);
    tensor_core::ldmatrix_trans(r, tile + (at ^ (np << 5)));
  }
};

// s = X[row0 .. row0 + 16) Y[y0 .. y0 + 16 NP)^T: dots over d in 16-wide steps from +0.
// Fragment s[nb][e]: X row lane / 4 + 8 (e / 2), Y row y0 + 8 nb + 2 (lane % 4) + e % 2.
template <DType T, int D, int NP = 4>
__device__ __forceinline__ void rows_by_tile(float (&s)[2 * NP][4], std::uint32_t x, int row0,
                                             std::uint32_t y, int lane, int y0 = 0) {
#pragma unroll
  for (int nb = 0; nb < 2 * NP; ++nb)
#pragma unroll
    for (int e = 0; e < 4; ++e) s[nb][e] = 0.0f;
#pragma unroll
  for (int kc = 0; kc < D / 16; ++kc) {
    std::uint32_t a[4];
    Tile<D>::a(a, x, row0, lane, kc);
#pragma unroll
    for (int np = 0; np < NP; ++np) {
      std::uint32_t b[4];
      Tile<D>::b(b, y, y0 + 16 * np, lane, kc);
      tensor_core::mma<T>(s[2 * np], a, b[0], b[1]);
      tensor_core::mma<T>(s[2 * np + 1], a, b[2], b[3]);
    }
  }
}

// A 16 x 16 KS fragment (s's layout), rounded to the input type, as the A operand of KS MMA steps
// of 16 along its columns.
template <DType T, int KS = 4>
__device__ __forceinline__ void pack_a(const float (&x)[2 * KS][4], std::uint32_t (&pa)[KS][4]) {
#pragma unroll
  for (int c = 0; c < KS; ++c) {
    pa[c][0] = tensor_core::pack_pair<T>(x[2 * c][0], x[2 * c][1]);
    pa[c][1] = tensor_core::pack_pair<T>(x[2 * c][2], x[2 * c][3]);
    pa[c][2] = tensor_core::pack_pair<T>(x[2 * c + 1][0], x[2 * c + 1][1]);
    pa[c][3] = tensor_core::pack_pair<T>(x[2 * c + 1][2], x[2 * c + 1][3]);
  }
}

// acc += A Z, A 16 x 16 KS (pack_a), Z the tile's rows [z0, z0 + 16 KS) by D columns: per 8
// columns, the KS steps of 16 rows ascending. acc[nb][e]: row lane / 4 + 8 (e / 2), column
// 8 nb + 2 (lane % 4) + e % 2. Two calls over rows [0, 32) then [32, 64) add in the order of
// one call over [0, 64): per accumulator, the steps ascending.
template <DType T, int D, int KS = 4>
__device__ __forceinline__ void accumulate(float (&acc)[D / 8][4], const std::uint32_t (&pa)[KS][4],
                                           std::uint32_t z, int lane, int z0 = 0) {
#pragma unroll
  for (int np = 0; np < D / 16; ++np) {
#pragma unroll
    for (int c = 0; c < KS; ++c) {
      std::uint32_t b[4];
      Tile<D>::bt(b, z, z0 + 16 * c, lane, np);
      tensor_core::mma<T>(acc[2 * np], pa[c], b[0], b[1]);
      tensor_core::mma<T>(acc[2 * np + 1], pa[c], b[2], b[3]);
    }
  }
}

}  // namespace samebits::kernels::backward_tiles
