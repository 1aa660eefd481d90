// Expands a sweep declaration (named axes, per-device values) into points, the cartesian product
// with the first-declared axis varying slowest, the way NVBench's state generator walks its axes.
#include "cases/sweep.h"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

namespace samebits {

const Json& Point::at(const std::string& axis) const {
  if (!values_.contains(axis))
    throw std::out_of_range(fmt::format("point has no axis \"{}\"", axis));
  return values_.at(axis);
}

std::int64_t Point::integer(const std::string& axis) const {
  const Json& v = at(axis);
  if (!v.is_number_integer()) {
    throw std::invalid_argument(
        fmt::format("axis \"{}\" must be an integer, got {}", axis, v.dump()));
  }
  return v.get<std::int64_t>();
}
std::int64_t Point::integer_or(const std::string& axis, std::int64_t fallback) const {
  return has(axis) ? integer(axis) : fallback;
}
double Point::real(const std::string& axis) const {
  const Json& v = at(axis);
  if (!v.is_number()) {
    throw std::invalid_argument(
        fmt::format("axis \"{}\" must be a number, got {}", axis, v.dump()));
  }
  return v.get<double>();
}
double Point::real_or(const std::string& axis, double fallback) const {
  return has(axis) ? real(axis) : fallback;
}
std::string Point::text(const std::string& axis) const {
  const Json& v = at(axis);
  if (!v.is_string()) {
    throw std::invalid_argument(
        fmt::format("axis \"{}\" must be a string, got {}", axis, v.dump()));
  }
  return v.get<std::string>();
}
std::string Point::text_or(const std::string& axis, const std::string& fallback) const {
  return has(axis) ? text(axis) : fallback;
}
bool Point::flag_or(const std::string& axis, bool fallback) const {
  if (!has(axis)) return fallback;
  const Json& v = at(axis);
  if (!v.is_boolean()) {
    throw std::invalid_argument(
        fmt::format("axis \"{}\" must be true or false, got {}", axis, v.dump()));
  }
  return v.get<bool>();
}
std::vector<std::int64_t> Point::integers(const std::string& axis) const {
  const Json& v = at(axis);
  std::vector<std::int64_t> out;
  if (v.is_number_integer()) return {v.get<std::int64_t>()};
  if (!v.is_array()) {
    throw std::invalid_argument(fmt::format("axis \"{}\" must be an array of integers", axis));
  }
  for (const auto& e : v) {
    if (!e.is_number_integer()) {
      throw std::invalid_argument(fmt::format("axis \"{}\" must be an array of integers", axis));
    }
    out.push_back(e.get<std::int64_t>());
  }
  return out;
}

std::string format_axis_value(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array()) {
    std::string out;
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (i) out += '_';
      out += format_axis_value(value[i]);
    }
    return out;
  }
  return value.dump();
}

std::string Point::label() const {
  std::string out;
  for (const auto& item : values_.items()) {
    if (!out.empty()) out += ',';
    out += item.key();
    out += '=';
    out += format_axis_value(item.value());
  }
  return out;
}

std::uint64_t count_points(const SweepDecl& sweep, const std::string& device) {
  std::uint64_t n = 1;
  for (const auto& axis : sweep.axes) {
    const auto* values = axis.values_for(device);
    if (!values) continue;
    if (n > std::numeric_limits<std::uint64_t>::max() / values->size()) {
      return std::numeric_limits<std::uint64_t>::max();
    }
    n *= values->size();
  }
  return n;
}

std::vector<Point> expand_sweep(const SweepDecl& sweep, const std::string& device) {
  std::vector<std::pair<const AxisDecl*, const std::vector<Json>*>> axes;
  for (const auto& axis : sweep.axes) {
    if (const auto* values = axis.values_for(device)) axes.emplace_back(&axis, values);
  }
  std::vector<Point> points;
  std::vector<std::size_t> index(axes.size(), 0);
  while (true) {
    Json values = Json::object();
    for (std::size_t a = 0; a < axes.size(); ++a)
      values[axes[a].first->name] = (*axes[a].second)[index[a]];
    points.emplace_back(std::move(values));
    // Odometer: the last axis turns fastest.
    std::size_t a = axes.size();
    while (a > 0) {
      --a;
      if (++index[a] < axes[a].second->size()) break;
      index[a] = 0;
      if (a == 0) return points;
    }
    if (axes.empty()) return points;
  }
}

}  // namespace samebits
