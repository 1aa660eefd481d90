// Bitwise comparison of two kernel results (CPU twin and GPU alike, on any devices), shared by the
// kernel tests: the first differing element with both values, their hex bits and their ulps apart.
#pragma once

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>

namespace samebits {

// The bits of t as int64s (float32 as int32, 16-bit floats as int16), flattened.
inline at::Tensor bits_of_tensor(const at::Tensor& t) {
  const at::Tensor c = t.contiguous().cpu().view({-1});
  return (c.element_size() == 4 ? c.view(at::kInt) : c.view(at::kShort)).to(at::kLong);
}

// Ordinal of a float's bits (sign-magnitude to two's complement at the dtype's width).
inline std::int64_t float_ordinal(std::int64_t bits, int width) {
  const std::int64_t sign_bit = std::int64_t{1} << (width - 1);
  const std::int64_t u = bits & ((sign_bit << 1) - 1);
  return (u & sign_bit) ? -(u & (sign_bit - 1)) : u;
}

inline ::testing::AssertionResult same_bits(const at::Tensor& want, const at::Tensor& got) {
  if (want.sizes() != got.sizes() || want.scalar_type() != got.scalar_type()) {
    return ::testing::AssertionFailure()
           << "shapes or dtypes differ: " << want.sizes() << " " << want.scalar_type() << " vs "
           << got.sizes() << " " << got.scalar_type();
  }
  const at::Tensor a = bits_of_tensor(want), b = bits_of_tensor(got);
  const at::Tensor differ = a.ne(b);
  const std::int64_t count = differ.sum().item<std::int64_t>();
  if (count == 0) return ::testing::AssertionSuccess();
  const std::int64_t i = differ.nonzero().view({-1})[0].item<std::int64_t>();
  const int width = static_cast<int>(want.element_size() * 8);
  const std::int64_t wa = a[i].item<std::int64_t>(), gb = b[i].item<std::int64_t>();
  const at::Tensor wf = want.contiguous().cpu().view({-1}).to(at::kDouble);
  const at::Tensor gf = got.contiguous().cpu().view({-1}).to(at::kDouble);
  std::ostringstream os;
  os << count << " of " << a.numel() << " differ; first at " << i << ": want "
     << wf[i].item<double>() << " (0x" << std::hex << (wa & ((std::int64_t{1} << width) - 1))
     << "), got " << std::dec << gf[i].item<double>() << " (0x" << std::hex
     << (gb & ((std::int64_t{1} << width) - 1)) << std::dec << "), "
     << float_ordinal(gb, width) - float_ordinal(wa, width) << " ulp";
  return ::testing::AssertionFailure() << os.str();
}

}  // namespace samebits
