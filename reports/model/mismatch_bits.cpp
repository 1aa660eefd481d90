// A mismatch's values and ULP distance, read back from its bits: a report leaves out what the bits
// already say (reports/model/case_json.cpp does so only where these functions give the same back).
#include "reports/model/mismatch_bits.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace samebits {
namespace {

// "0x" and 2, 4, 8 or 16 hex digits: the pattern and its width in bits.
struct Pattern {
  std::uint64_t bits = 0;
  int width = 0;
};

std::optional<Pattern> hex_pattern(const std::string& text) {
  if (text.size() < 4 || text[0] != '0' || text[1] != 'x') return std::nullopt;
  const std::size_t digits = text.size() - 2;
  if (digits != 2 && digits != 4 && digits != 8 && digits != 16) return std::nullopt;
  Pattern p;
  for (std::size_t i = 2; i < text.size(); ++i) {
    const char c = text[i];
    int v = 0;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v = c - 'a' + 10;
    } else {
      return std::nullopt;  // element_bits writes lower case only
    }
    p.bits = (p.bits << 4) | static_cast<std::uint64_t>(v);
  }
  p.width = static_cast<int>(digits) * 4;
  return p;
}

// A binary float of `exponent_bits` and `mantissa_bits` (bias 2^(e-1) - 1) with IEEE infinities
// and NaNs; e4m3fn has no infinities and one NaN pattern per sign.
double small_float(std::uint64_t bits, int exponent_bits, int mantissa_bits, bool fn) {
  const int width = 1 + exponent_bits + mantissa_bits;
  const bool negative = (bits >> (width - 1)) & 1;
  const std::uint64_t exponent = (bits >> mantissa_bits) & ((1u << exponent_bits) - 1);
  const std::uint64_t mantissa = bits & ((std::uint64_t{1} << mantissa_bits) - 1);
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const std::uint64_t top = (1u << exponent_bits) - 1;
  double v = 0;
  if (fn && exponent == top && mantissa == (std::uint64_t{1} << mantissa_bits) - 1) {
    v = std::numeric_limits<double>::quiet_NaN();
  } else if (!fn && exponent == top) {
    v = mantissa ? std::numeric_limits<double>::quiet_NaN()
                 : std::numeric_limits<double>::infinity();
  } else if (exponent == 0) {
    v = std::ldexp(static_cast<double>(mantissa), 1 - bias - mantissa_bits);
  } else {
    v = std::ldexp(static_cast<double>(mantissa | (std::uint64_t{1} << mantissa_bits)),
                   static_cast<int>(exponent) - bias - mantissa_bits);
  }
  return negative ? -v : v;
}

bool is_floating(const std::string& dtype) {
  return dtype == "float32" || dtype == "float64" || dtype == "float16" || dtype == "bfloat16" ||
         dtype == "float8_e4m3fn" || dtype == "float8_e5m2";
}

std::optional<double> integer_value(const std::string& text) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  std::size_t i = text[0] == '-' ? 1 : 0;
  if (i == text.size()) return std::nullopt;
  for (std::size_t k = i; k < text.size(); ++k) {
    if (text[k] < '0' || text[k] > '9') return std::nullopt;
  }
  try {
    return static_cast<double>(std::stoll(text));
  } catch (const std::exception&) {
    return std::nullopt;  // past int64
  }
}

std::optional<double> decoded(const std::string& bits, const std::string& dtype) {
  if (dtype == "int64" || dtype == "int32") return integer_value(bits);
  if (!is_floating(dtype)) return std::nullopt;
  const auto p = hex_pattern(bits);
  if (!p) return std::nullopt;
  switch (p->width) {
    case 64: {
      double d = 0;
      std::memcpy(&d, &p->bits, sizeof d);
      return d;
    }
    case 32: {
      const auto u = static_cast<std::uint32_t>(p->bits);
      float f = 0;
      std::memcpy(&f, &u, sizeof f);
      return static_cast<double>(f);
    }
    case 16:
      if (dtype == "float16") return small_float(p->bits, 5, 10, false);
      if (dtype == "bfloat16") return small_float(p->bits, 8, 7, false);
      return std::nullopt;
    case 8:
      if (dtype == "float8_e4m3fn") return small_float(p->bits, 4, 3, true);
      if (dtype == "float8_e5m2") return small_float(p->bits, 5, 2, false);
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> value_of_bits(const std::string& bits, const std::string& dtype) {
  const auto v = decoded(bits, dtype);
  // One NaN, as a report reads "nan": JSON keeps no sign or payload of one.
  if (v && std::isnan(*v)) return std::numeric_limits<double>::quiet_NaN();
  return v;
}

std::optional<std::uint64_t> ulp_of_bits(const std::string& a, const std::string& b,
                                         const std::string& dtype) {
  const auto pa = hex_pattern(a), pb = hex_pattern(b);
  if (!pa || !pb || pa->width != pb->width) return std::nullopt;
  const auto va = value_of_bits(a, dtype), vb = value_of_bits(b, dtype);
  if (!va || !vb || !std::isfinite(*va) || !std::isfinite(*vb)) return std::nullopt;
  const int w = pa->width;
  const std::uint64_t magnitude_mask = (std::uint64_t{1} << (w - 1)) - 1;
  const bool na = (pa->bits >> (w - 1)) & 1, nb = (pb->bits >> (w - 1)) & 1;
  const std::uint64_t ma = pa->bits & magnitude_mask, mb = pb->bits & magnitude_mask;
  // Ordinals: +m or -m. The same sign: |ma - mb|; across zero: ma + mb, saturating at 2^63 - 1.
  if (na == nb) return ma > mb ? ma - mb : mb - ma;
  const std::uint64_t across = ma + mb;  // < 2^64: each magnitude is below 2^63
  const auto cap = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  return across > cap ? cap : across;
}

}  // namespace samebits
