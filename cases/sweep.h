// Expands a sweep declaration (named axes, per-device values) into points, the cartesian product
// with the first-declared axis varying slowest, the way NVBench's state generator walks its axes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "contracts/contract.h"

namespace samebits {

// One point of a sweep: axis name -> value, in declaration order.
class Point {
 public:
  Point() : values_(Json::object()) {}
  explicit Point(Json values) : values_(std::move(values)) {}

  bool has(const std::string& axis) const { return values_.contains(axis); }
  const Json& at(const std::string& axis) const;
  std::int64_t integer(const std::string& axis) const;
  std::int64_t integer_or(const std::string& axis, std::int64_t fallback) const;
  double real(const std::string& axis) const;
  double real_or(const std::string& axis, double fallback) const;
  std::string text(const std::string& axis) const;
  std::string text_or(const std::string& axis, const std::string& fallback) const;
  bool flag_or(const std::string& axis, bool fallback) const;
  std::vector<std::int64_t> integers(const std::string& axis) const;  // an array-valued axis

  void set(const std::string& axis, Json value) { values_[axis] = std::move(value); }
  const Json& values() const { return values_; }
  // "N=131,dtype=float32,lengths=100_37": readable, stable, and free of spaces.
  std::string label() const;

 private:
  Json values_;
};

// A value as it appears in labels: numbers and strings as written, arrays joined by '_'.
std::string format_axis_value(const Json& value);

// Cartesian product over the axes that have values on `device`.
std::vector<Point> expand_sweep(const SweepDecl& sweep, const std::string& device);
// How many points expand_sweep would produce (saturating), without building them.
std::uint64_t count_points(const SweepDecl& sweep, const std::string& device);

}  // namespace samebits
