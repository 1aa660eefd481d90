// What radix_select.cu and split_select.cu share once their words are chosen: the bitonic sort of
// 64-bit (key, index) words in shared memory (any correct sort of distinct words gives one
// sequence, so no thread timing shows in the order), and a word's value and index written out.
#pragma once

#include <cstdint>

#include "kernels/topk/topk_device.cuh"

namespace samebits::kernels::topk_device {

// Sorts n words ascending (n a power of two, at least 64): a bitonic network whose exchanges
// across more than 32 positions go through shared memory between barriers, and whose shorter
// ones run in registers, each warp holding 64-word segments (lane l: words l and l + 32).
template <int Threads>
__device__ void sort_words(unsigned long long* words, std::uint32_t n) {
  constexpr std::uint32_t kWarps = Threads / 32;
  const std::uint32_t tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  for (std::uint32_t size = 2; size <= n; size <<= 1) {
    std::uint32_t stride = size >> 1;
    for (; stride >= 64; stride >>= 1) {
      for (std::uint32_t t = tid; t < n / 2; t += Threads) {
        const std::uint32_t i = 2 * t - (t & (stride - 1));
        const std::uint32_t j = i + stride;
        const unsigned long long a = words[i], b = words[j];
        if ((a > b) == ((i & size) == 0)) {
          words[i] = b;
          words[j] = a;
        }
      }
      __syncthreads();
    }
    for (std::uint32_t segment = warp; segment < n / 64; segment += kWarps) {
      const std::uint32_t i0 = segment * 64 + lane, i1 = i0 + 32;
      unsigned long long a = words[i0], b = words[i1];
      for (std::uint32_t s = stride; s > 0; s >>= 1) {
        if (s == 32) {  // i0 and i1 lie in one run (size >= 64): a plain exchange
          if ((a > b) == ((i0 & size) == 0)) {
            const unsigned long long t = a;
            a = b;
            b = t;
          }
        } else {
          a = exchange(a, i0, s, size);
          b = exchange(b, i1, s, size);
        }
      }
      words[i0] = a;
      words[i1] = b;
    }
    __syncthreads();
  }
}

// The value whose key is `key`, for keys that name a single float: not NaN (every NaN has one
// key) and not zero (+0.0 and -0.0 share one). Exact: the key maps float32 bits one to one, and a
// 16-bit value widened to float32 narrows back to itself.
template <typename T>
__device__ __forceinline__ T value_of_key(std::uint32_t key) {
  const float f = __uint_as_float((key & 0x80000000u) ? (key & 0x7fffffffu) : ~key);
  if constexpr (std::is_same_v<T, float>) {
    return f;
  } else if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(f);
  } else {
    return __float2bfloat16_rn(f);
  }
}

// Chosen element `word` in output slot `slot`: its index, and its value from its key (no read of
// the row) unless the key names several floats (NaN, zero), whose bits only the row holds.
template <typename T>
__device__ __forceinline__ void write_chosen(const T* row, unsigned long long word,
                                             std::uint32_t slot, T* row_values,
                                             std::int64_t* row_indices) {
  const std::uint32_t key = ~static_cast<std::uint32_t>(word >> 32);
  const std::uint32_t index = index_of_word(word);
  const bool one_float = key != 0xffffffffu && key != key_of_bits(0);
  row_values[slot] = one_float ? value_of_key<T>(key) : row[index];
  row_indices[slot] = index;
}

}  // namespace samebits::kernels::topk_device
