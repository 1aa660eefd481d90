// Hopper's warpgroup MMA (wgmma, sm_90a) as inline functions: shared-memory descriptors for the
// 128-byte swizzle, S = Q K^T from shared memory, P V with P in registers, and the fences.
#pragma once

#include <cstdint>

#include "kernels/common/status.h"

// Compiled only where the target has wgmma (sm_90a); elsewhere the callers are not instantiated.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define SAMEBITS_WGMMA_DEVICE 1
#endif

namespace samebits::kernels::warpgroup {

// A descriptor of an operand tile in shared memory, in the 128-byte swizzle: rows of 64 16-bit
// elements (128 bytes) with chunk c of row r at c ^ (r & 7), 8-row groups `sbo` bytes apart and
// 64-element column blocks `lbo` bytes apart (the MN-major operand's second block). The tile's
// base is 1024-byte aligned; a 16-wide K step inside a row is a 32-byte move of the start.
__device__ __forceinline__ std::uint64_t descriptor(std::uint32_t address, std::uint32_t lbo,
                                                    std::uint32_t sbo) {
  return static_cast<std::uint64_t>((address & 0x3ffffu) >> 4) |
         (static_cast<std::uint64_t>(lbo >> 4) << 16) |
         (static_cast<std::uint64_t>(sbo >> 4) << 32) | (1ull << 62);
}

// A descriptor kept as its two 32-bit halves, so that moving its tile's start by `bytes` (a
// multiple of 16) is one 32-bit add: the start field (address >> 4, 14 bits) cannot carry into
// the leading offset above it while the moved address stays inside shared memory (< 256 KB).
struct Descriptor {
  std::uint32_t lo, hi;
  __device__ std::uint64_t at(std::uint32_t bytes) const {
    return (static_cast<std::uint64_t>(hi) << 32) | (lo + (bytes >> 4));
  }
};
__device__ __forceinline__ Descriptor descriptor_of(std::uint32_t address, std::uint32_t lbo,
                                                    std::uint32_t sbo) {
  const std::uint64_t d = descriptor(address, lbo, sbo);
  return {static_cast<std::uint32_t>(d), static_cast<std::uint32_t>(d >> 32)};
}

#if defined(SAMEBITS_WGMMA_DEVICE)
__device__ __forceinline__ void fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Shared memory written through the generic proxy (cp.async, stores), made visible to wgmma.
__device__ __forceinline__ void fence_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
// Keeps the compiler from moving an accumulator across an asynchronous MMA's issue or wait.
template <int NB>
__device__ __forceinline__ void pin(float (&d)[NB][4]) {
#pragma unroll
  for (int nb = 0; nb < NB; ++nb)
#pragma unroll
    for (int e = 0; e < 4; ++e) asm volatile("" : "+f"(d[nb][e])::"memory");
}

#define SAMEBITS_D8(i)                                                           \
  "+f"(d[i][0]), "+f"(d[i][1]), "+f"(d[i][2]), "+f"(d[i][3]), "+f"(d[i + 1][0]), \
      "+f"(d[i + 1][1]), "+f"(d[i + 1][2]), "+f"(d[i + 1][3])
#define SAMEBITS_R32                                                                        \
  "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23," \
  "%24,%25,%26,%27,%28,%29,%30,%31}"
#define SAMEBITS_R64                                                                         \
  "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"  \
  "%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45," \
  "%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}"

// d (64 x 64, float32) = (add ? d : nothing) + a (64 x 16, K-major in shared memory) * b (16 x
// 64, K-major): the scores of a warpgroup's 64 rows over a 64-key tile, one 16-wide step of the
// head dim. A chain's first step does not add (the accumulators are the hardware's to set).
template <DType T>
__device__ __forceinline__ void scores_step(float (&d)[8][4], std::uint64_t a, std::uint64_t b,
                                            bool add) {
  if constexpr (T == DType::bf16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 " SAMEBITS_R32
        ", %32, %33, p, 1, 1, 0, 0;\n}\n"
        : SAMEBITS_D8(0), SAMEBITS_D8(2), SAMEBITS_D8(4), SAMEBITS_D8(6)
        : "l"(a), "l"(b), "r"(add ? 1 : 0));
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " SAMEBITS_R32
        ", %32, %33, p, 1, 1, 0, 0;\n}\n"
        : SAMEBITS_D8(0), SAMEBITS_D8(2), SAMEBITS_D8(4), SAMEBITS_D8(6)
        : "l"(a), "l"(b), "r"(add ? 1 : 0));
  }
}

// d (64 x N, float32) = (add ? d : nothing) + a (64 x 16 in registers, the mma.sync A fragment
// per warp) * b (16 x N, MN-major in shared memory): P V over one 16-key step, N = 64 or 128.
template <DType T, int N>
__device__ __forceinline__ void values_step(float (&d)[N / 8][4], const std::uint32_t (&a)[4],
                                            std::uint64_t b, bool add) {
  static_assert(N == 64 || N == 128, "head dims 64 and 128");
  if constexpr (N == 64) {
    if constexpr (T == DType::bf16) {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 " SAMEBITS_R32
          ", {%32,%33,%34,%35}, %36, p, 1, 1, 1;\n}\n"
          : SAMEBITS_D8(0), SAMEBITS_D8(2), SAMEBITS_D8(4), SAMEBITS_D8(6)
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(add ? 1 : 0));
    } else {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " SAMEBITS_R32
          ", {%32,%33,%34,%35}, %36, p, 1, 1, 1;\n}\n"
          : SAMEBITS_D8(0), SAMEBITS_D8(2), SAMEBITS_D8(4), SAMEBITS_D8(6)
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(add ? 1 : 0));
    }
  } else {
    if constexpr (T == DType::bf16) {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 " SAMEBITS_R64
          ", {%64,%65,%66,%67}, %68, p, 1, 1, 1;\n}\n"
          : SAMEBITS_D8(0), SAMEBITS_D8(2), SAMEBITS_D8(4), SAMEBITS_D8(6), SAMEBITS_D8(8),
            SAMEBITS_D8(10), SAMEBITS_D8(12), SAMEBITS_D8(14)
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(add ? 1 : 0));
    } else {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " SAMEBITS_R64
          ", {%64,%65,%66,%67}, %68, p, 1, 1, 1;\n}\n"
          : SAMEBITS_D8(0), SAMEBITS_D8(2), SAMEBITS_D8(4), SAMEBITS_D8(6), SAMEBITS_D8(8),
            SAMEBITS_D8(10), SAMEBITS_D8(12), SAMEBITS_D8(14)
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(add ? 1 : 0));
    }
  }
}

#undef SAMEBITS_D8
#undef SAMEBITS_R32
#undef SAMEBITS_R64
#endif  // SAMEBITS_WGMMA_DEVICE

}  // namespace samebits::kernels::warpgroup
