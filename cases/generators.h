// Seeded input generators, each with the one-line reason it exists. Values are drawn on the case's
// device from a generator seeded per case and item, so one case id and seed reproduce its inputs.
#pragma once

#include <ATen/ATen.h>

#include <string>
#include <vector>

namespace samebits {

struct GeneratorInfo {
  std::string name;
  std::string reason;
};

const std::vector<GeneratorInfo>& generator_catalog();
bool is_generator(const std::string& name);

// Values of `shape` and `dtype` on `device`; throws std::invalid_argument for an unknown name.
at::Tensor generate(const std::string& name, at::IntArrayRef shape, at::ScalarType dtype,
                    const at::Device& device, at::Generator& gen);

// The canary written into padding and gaps that a correct op never reads: NaN.
at::Scalar canary_value();

}  // namespace samebits
