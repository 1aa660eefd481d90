// The order every samebits top-k returns: value descending, then index ascending (the order of a
// stable descending sort), with NaN above +inf and -0.0 equal to +0.0. Shared by kernels and twin.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define SAMEBITS_HD __host__ __device__ __forceinline__
#else
#define SAMEBITS_HD inline
#endif

namespace samebits::kernels::topk_order {

// An unsigned key that orders float32 values as the contract does: a larger key comes first.
//   NaN (any sign, any payload) -> 0xffffffff, above +inf (0xff800000); all NaNs tie.
//   -0.0 -> the key of +0.0 (0x80000000), so the two zeros tie and keep index order.
//   x > 0 -> bits | 0x80000000;  x < 0 -> ~bits (more negative, smaller key).
// Key 0 is never produced (it would be a negative NaN): kernels use it for "no element".
SAMEBITS_HD std::uint32_t key_of_bits(std::uint32_t bits) {
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return 0xffffffffu;  // NaN
  if (magnitude == 0) return 0x80000000u;           // +0.0 and -0.0
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

constexpr std::uint32_t kNoElement = 0;

// One 64-bit word per element whose ascending order is the contract's order: the complemented
// key above the index. Words of distinct elements differ, so any correct sort of them gives the
// same sequence: the output cannot depend on which threads found which elements first.
SAMEBITS_HD std::uint64_t sort_word(std::uint32_t key, std::uint32_t index) {
  return (static_cast<std::uint64_t>(~key) << 32) | index;
}
SAMEBITS_HD std::uint32_t index_of_word(std::uint64_t word) {
  return static_cast<std::uint32_t>(word & 0xffffffffu);
}
constexpr std::uint64_t kEmptyWord = ~std::uint64_t{0};  // sorts after every element

}  // namespace samebits::kernels::topk_order
