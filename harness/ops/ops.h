// Factories for the ATen op adapters, one per file in this folder. The built-in registry lists
// them here explicitly (no static registration), so a reader sees every op in one place.
#pragma once

#include <memory>
#include <vector>

#include "harness/op.h"

namespace samebits {

std::unique_ptr<Op> make_sum_op();
std::unique_ptr<Op> make_mean_op();
std::unique_ptr<Op> make_softmax_op();
std::unique_ptr<Op> make_log_softmax_op();
std::unique_ptr<Op> make_topk_op();
std::unique_ptr<Op> make_sort_op();
std::unique_ptr<Op> make_matmul_op();
std::unique_ptr<Op> make_linear_op();
std::unique_ptr<Op> make_rmsnorm_op();
std::unique_ptr<Op> make_sdpa_op();
std::unique_ptr<Op> make_indexer_op();

std::vector<std::unique_ptr<Op>> make_builtin_ops();

}  // namespace samebits
