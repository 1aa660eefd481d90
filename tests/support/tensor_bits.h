// Tensors written as bit patterns: hand-built inputs for the diff tests, so every expected value
// (ULP distance, hex bits) follows from the IEEE encodings rather than from the code under test.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace samebits {

// A 1-D tensor of `dtype` whose elements have exactly these bit patterns (low bits used).
inline at::Tensor from_bits(at::ScalarType dtype, const std::vector<std::uint64_t>& bits) {
  std::vector<std::int64_t> as_signed;
  for (auto b : bits) as_signed.push_back(static_cast<std::int64_t>(b));
  const at::Tensor wide = at::tensor(as_signed, at::kLong);
  switch (c10::elementSize(dtype)) {
    case 1: return wide.bitwise_and(0xff).to(at::kByte).view(dtype);
    case 2: {
      // int64 -> int16 keeps the low 16 bits once the value is in [-2^15, 2^15).
      const at::Tensor low = wide.bitwise_and(0xffff);
      return at::where(low.ge(0x8000), low - 0x10000, low).to(at::kShort).view(dtype);
    }
    case 4: {
      const at::Tensor low = wide.bitwise_and(0xffffffffLL);
      return at::where(low.ge(0x80000000LL), low - 0x100000000LL, low).to(at::kInt).view(dtype);
    }
    case 8: return wide.view(dtype);
  }
  throw std::invalid_argument("from_bits: unsupported element size");
}

// The bit pattern of element i of a 1-D tensor, zero-extended.
inline std::uint64_t bits_of(const at::Tensor& t, std::int64_t i) {
  const at::Tensor e = t.reshape({-1}).select(0, i).cpu().contiguous();
  std::uint64_t out = 0;
  const auto* p = static_cast<const unsigned char*>(e.data_ptr());
  for (std::size_t b = 0; b < static_cast<std::size_t>(e.element_size()); ++b)
    out |= std::uint64_t{p[b]} << (8 * b);
  return out;
}

}  // namespace samebits
