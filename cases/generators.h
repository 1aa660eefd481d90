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

// A seed for stream `stream` (an item, the shared tensors) of a case: splitmix64 of both, so
// neighbouring streams get unrelated generators.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

// A fresh generator on `device` with this seed (CPU: mt19937; CUDA: Philox).
at::Generator make_generator(const at::Device& device, std::uint64_t seed);

// Values of `shape` and `dtype` on `device`; throws std::invalid_argument for an unknown name.
at::Tensor generate(const std::string& name, at::IntArrayRef shape, at::ScalarType dtype,
                    const at::Device& device, at::Generator& gen);

// The canary written into padding and gaps that a correct op never reads: NaN.
at::Scalar canary_value();

}  // namespace samebits
