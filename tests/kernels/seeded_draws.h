// The one seeded draw sequence of the torch-free twin tests (a 64-bit linear congruential
// generator, Knuth's MMIX constants): the same inputs on every machine and in the sanitized build.
#pragma once

#include <cstdint>

namespace samebits {

// Advances s and returns its new value; callers take the bits they need (the high ones are best).
inline std::uint64_t next_draw(std::uint64_t& s) {
  s = s * 6364136223846793005ULL + 1442695040888963407ULL;
  return s;
}

}  // namespace samebits
