// Seeded input generators, each with the one-line reason it exists. Values are drawn on the case's
// device from a generator seeded per case and item, so one case id and seed reproduce its inputs.
#include "cases/generators.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace samebits {
namespace {

at::TensorOptions float_on(const at::Device& device) {
  return at::TensorOptions().dtype(at::kFloat).device(device);
}

at::Tensor standard_normal(at::IntArrayRef shape, const at::Device& device, at::Generator& gen) {
  return at::empty(shape, float_on(device)).normal_(0.0, 1.0, gen);
}

}  // namespace

const std::vector<GeneratorInfo>& generator_catalog() {
  static const std::vector<GeneratorInfo> catalog = {
      {"normal", "N(0, 1): typical activations, the baseline for every op"},
      {"uniform", "U(-1, 1): bounded values without outliers"},
      {"relu", "max(N(0, 1), 0): post-ReLU scores, half of them exact zeros that tie"},
      {"rounded",
       "N(0, 1) rounded to quarters: few distinct values, heavy ties for top-k and sort"},
      {"wide", "+-2^U(-20, 20): wide dynamic range, where the order of a sum decides its rounding"},
      {"outliers", "N(0, 1) with 1% of values scaled by 1000: outliers that dominate max and sums"},
      {"exact",
       "integers in [-16, 16] / 16: sums of up to 2^19 terms are exact in float32, an exact "
       "oracle"},
      {"distinct",
       "a random permutation of k / 1024: no two values tie (exact for up to 2^24 float32 "
       "values), the tie-free control"},
  };
  return catalog;
}

bool is_generator(const std::string& name) {
  for (const auto& g : generator_catalog()) {
    if (g.name == name) return true;
  }
  return false;
}

at::Tensor generate(const std::string& name, at::IntArrayRef shape, at::ScalarType dtype,
                    const at::Device& device, at::Generator& gen) {
  at::Tensor x;
  if (name == "normal") {
    x = standard_normal(shape, device, gen);
  } else if (name == "uniform") {
    x = at::empty(shape, float_on(device)).uniform_(-1.0, 1.0, gen);
  } else if (name == "relu") {
    x = standard_normal(shape, device, gen).clamp_min_(0.0);
  } else if (name == "rounded") {
    x = standard_normal(shape, device, gen).mul_(4.0).round_().div_(4.0);
  } else if (name == "wide") {
    at::Tensor exponent = at::empty(shape, float_on(device)).uniform_(-20.0, 20.0, gen);
    at::Tensor sign = at::empty(shape, float_on(device)).bernoulli_(0.5, gen).mul_(2.0).sub_(1.0);
    x = at::exp2(exponent).mul_(sign);
  } else if (name == "outliers") {
    x = standard_normal(shape, device, gen);
    at::Tensor mask = at::empty(shape, float_on(device)).bernoulli_(0.01, gen);
    x.mul_(mask.mul(999.0).add_(1.0));
  } else if (name == "exact") {
    x = at::randint(-16, 17, shape, gen, float_on(device)).div_(16.0);
  } else if (name == "distinct") {
    const std::int64_t n = c10::multiply_integers(shape);
    x = at::randperm(n, gen, at::TensorOptions().dtype(at::kLong).device(device))
            .to(at::kFloat)
            .sub_(static_cast<double>(n / 2))
            .div_(1024.0)
            .reshape(shape);
  } else {
    std::vector<std::string> names;
    for (const auto& g : generator_catalog()) names.push_back(g.name);
    throw std::invalid_argument(
        fmt::format("unknown generator \"{}\"; accepted: {}", name, fmt::join(names, ", ")));
  }
  return dtype == at::kFloat ? x : x.to(dtype);
}

at::Scalar canary_value() {
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace samebits
