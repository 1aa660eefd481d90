// The one seed derivation of every case, whether `samebits run` or `samebits sweep` planned it:
// the run's seed and the case's name give the case seed, and the case seed each item's generator.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <string>

namespace samebits {

// A case's seed: the first 8 bytes of SHA-256("run_seed|contract|check|point_label"), where the
// label is the point's declared axes ("N=131,layout=padded:4"). Not its position in the run, so a
// filter, --case or a shard leaves every case's inputs as they were.
std::uint64_t case_seed(std::uint64_t run_seed, const std::string& contract,
                        const std::string& check, const std::string& point_label);

// The stream of a case's shared tensors; items use their index as their stream.
inline constexpr std::uint64_t kSharedStream = 0xffff;

// A seed for stream `stream` (an item, the shared tensors) of a case: splitmix64 of both, so
// neighbouring streams get unrelated generators and item k is the same in every batch it joins.
std::uint64_t item_seed(std::uint64_t case_seed, std::uint64_t stream);

// A fresh generator on `device` with this seed (CPU: mt19937; CUDA: Philox).
at::Generator make_generator(const at::Device& device, std::uint64_t seed);

}  // namespace samebits
