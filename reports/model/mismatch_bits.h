// A mismatch's values and ULP distance, read back from its bits: a report leaves out what the bits
// already say (reports/model/case_json.cpp does so only where these functions give the same back).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace samebits {

// The value that `bits` (as harness/diff.h's element_bits writes them: "0x3f800000" at the
// dtype's width, integers in decimal) stand for in an output of `dtype`: float32 and float64 at
// their own width (a float64 reference may stand beside a narrower output), float16, bfloat16 and
// the float8 formats at theirs, int32 and int64 in decimal. Nothing for any other form.
std::optional<double> value_of_bits(const std::string& bits, const std::string& dtype);

// The ULP distance between two finite values of one floating width given by their bits, as
// harness/diff.h's ulp_distance counts it (sign-magnitude ordinals, float64 saturating at
// 2^63 - 1). Nothing when either is not finite or not readable, or the widths differ.
std::optional<std::uint64_t> ulp_of_bits(const std::string& a, const std::string& b,
                                         const std::string& dtype);

}  // namespace samebits
