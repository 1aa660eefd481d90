// Compares two tensors the way a contract says (bitwise, ulp, allclose, indices) on the device
// where they live, and returns the evidence: counts, worst errors, a ULP histogram, the first
// mismatches.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "contracts/contract.h"
#include "reports/model/report.h"

namespace samebits {

// How many mismatches DiffStats::first_mismatches keeps.
inline constexpr std::int64_t kFirstMismatches = 8;

// ULP distance between two values of one floating dtype: |ord(a) - ord(b)| where ord maps the bit
// pattern to a signed integer (sign-magnitude to two's complement), so +0 and -0 are 0 apart.
// fp32 and fp64 use their own width; fp16 and bf16 16 bits; fp8 e4m3fn and e5m2 8 bits.
// Elementwise on tensors of equal dtype and shape; int64 result (fp64 distances past 2^63 - 1
// saturate); non-finite pairs are not counted here (the caller masks them).
at::Tensor ulp_distance(const at::Tensor& a, const at::Tensor& b);

// The default (rtol, atol) of torch.testing.assert_close for a dtype (0, 0 for integers).
std::pair<double, double> default_tolerances(at::ScalarType dtype);

// Compares variant against baseline (the reference side). Shapes must match; dtypes must match
// except that a float64 baseline may be compared with a lower-precision variant (it is rounded to
// the variant's dtype for bitwise and ulp modes). Throws std::invalid_argument otherwise.
// Most outputs compared are identical: those take one device reduction and one copy of three
// counts to the host, and give the same DiffStats as the general path (tested field by field).
DiffStats compare_tensors(const at::Tensor& baseline, const at::Tensor& variant,
                          const Comparison& how);
// The general path alone, for the test that holds the shortcut to it.
DiffStats compare_tensors_general(const at::Tensor& baseline, const at::Tensor& variant,
                                  const Comparison& how);

// Outputs up to this many bytes (both sides together) are compared and digested on the host.
inline constexpr std::int64_t kHostCompareBytes = std::int64_t{128} << 10;

// Both sides on the host after one copy, where they live on one GPU, share a dtype and hold at
// most kHostCompareBytes together: a small output's comparison is then a few host operations
// instead of tens of kernel launches and copies, and gives the same DiffStats (every step of the
// comparison is exact or correctly rounded on both devices). Otherwise nothing.
std::optional<std::pair<at::Tensor, at::Tensor>> small_pair_on_host(const at::Tensor& a,
                                                                   const at::Tensor& b);

// Hex of one element's bits at its dtype's width ("0x3f800000"); integers print in decimal.
std::string element_bits(const at::Tensor& t, std::int64_t flat_index);

// SHA-256 of a tensor's logical contents (contiguous, little-endian), with dtype and shape mixed
// in.
std::string tensor_sha256(const at::Tensor& t);
// The digests of two tensors, each as tensor_sha256 gives it, with one copy to the host where both
// live on one GPU.
std::pair<std::string, std::string> tensor_sha256_pair(const at::Tensor& a, const at::Tensor& b);

}  // namespace samebits
