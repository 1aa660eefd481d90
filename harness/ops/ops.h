// Factories for the op adapters, each in the file named after its op (or its pair of ops). The
// built-in registry lists them here explicitly (no static registration): every op in one place.
#pragma once

#include <memory>
#include <vector>

#include "harness/op.h"

namespace samebits {

std::unique_ptr<Op> make_sum_op();          // sum_mean_ops.cpp
std::unique_ptr<Op> make_mean_op();         // sum_mean_ops.cpp
std::unique_ptr<Op> make_softmax_op();      // softmax_log_softmax_ops.cpp
std::unique_ptr<Op> make_log_softmax_op();  // softmax_log_softmax_ops.cpp
std::unique_ptr<Op> make_topk_op();         // topk_op.cpp
std::unique_ptr<Op> make_sort_op();         // sort_op.cpp
std::unique_ptr<Op> make_matmul_op();       // matmul_linear_ops.cpp
std::unique_ptr<Op> make_linear_op();       // matmul_linear_ops.cpp
std::unique_ptr<Op> make_rmsnorm_op();      // rmsnorm_op.cpp
std::unique_ptr<Op> make_sdpa_op();         // sdpa_op.cpp (sdpa_backends, sdpa_batching)
std::unique_ptr<Op> make_indexer_op();      // indexer_op.cpp (indexer_pipelines)

std::vector<std::unique_ptr<Op>> make_builtin_ops();

}  // namespace samebits
