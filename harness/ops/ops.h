// Factories for the ATen op adapters, one per file in this folder. The built-in registry lists
// them here explicitly (no static registration), so a reader sees every op in one place.
#pragma once

#include <memory>
#include <vector>

#include "harness/op.h"

namespace samebits {

std::unique_ptr<Op> make_sum_op();
std::unique_ptr<Op> make_mean_op();

std::vector<std::unique_ptr<Op>> make_builtin_ops();

}  // namespace samebits
