// The one seed derivation of every case, whether `samebits run` or `samebits sweep` planned it:
// the run's seed and the case's name give the case seed, and the case seed each item's generator.
#include "cases/seeds.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <fmt/format.h>

#include "common/digest.h"

namespace samebits {

std::uint64_t case_seed(std::uint64_t run_seed, const std::string& contract,
                        const std::string& check, const std::string& point_label) {
  return sha256_prefix64(fmt::format("{}|{}|{}|{}", run_seed, contract, check, point_label));
}

std::uint64_t item_seed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

at::Generator make_generator(const at::Device& device, std::uint64_t seed) {
  if (device.is_cuda()) {
    at::Generator gen =
        at::cuda::detail::createCUDAGenerator(device.index() < 0 ? 0 : device.index());
    gen.set_current_seed(seed);
    return gen;
  }
  return at::detail::createCPUGenerator(seed);
}

}  // namespace samebits
