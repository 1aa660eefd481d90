// Kernel signatures (what makes two points' dispatch the same) and short kernel names for people,
// from the demangled names and launch shapes kernel capture records.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "reports/model/kernel_launch.h"

namespace samebits {

// Kernels launched at a point, by name and block shape (grid sizes follow the problem size and
// are left out unless with_grid), in launch order: "name [32x4x1]; name2 [128x1x1]". Repeats are
// dropped (a launch whose name and shape already appear), so a point launching a kernel twice has
// the signature of one launching it once; launch counts are not part of the signature.
std::string kernel_signature(const std::vector<KernelLaunch>& kernels, bool with_grid);

// A demangled kernel name shortened for people: no return type, namespaces or parameter list, and
// only the simple template arguments (numbers, words; "c10::Half" -> "Half"):
// "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<...> >(...)" -> "reduce_kernel<128,
// 4>". JSON keeps the full names.
std::string short_kernel_name(const std::string& demangled);

// "32x4x1".
std::string block_dims(const std::array<std::uint32_t, 3>& dims);

}  // namespace samebits
