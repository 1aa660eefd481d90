// What kernel capture records of one launch, and the integer properties a kernel choice may
// follow: the parts of the report model that case results and dispatch maps share.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace samebits {

// Launches of one CUDA kernel with one launch shape, as CUPTI saw them.
struct KernelLaunch {
  std::string name;  // demangled
  std::array<std::uint32_t, 3> grid{};
  std::array<std::uint32_t, 3> block{};
  std::uint32_t registers = 0;
  std::uint32_t static_smem = 0;   // bytes per block
  std::uint32_t dynamic_smem = 0;  // bytes per block
  std::uint64_t count = 0;         // launches with exactly this name and shape
  std::uint64_t duration_ns = 0;   // summed over those launches
};

// Integer properties a kernel choice may follow at a point and layout, by name, in the order rules
// should prefer them: N, row_stride, storage_offset, k, M, batch, ...
using PointProperties = std::vector<std::pair<std::string, std::int64_t>>;

}  // namespace samebits
