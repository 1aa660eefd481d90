// The table of built-in op adapters and their factories, each in the file named after its op (or
// its pair of ops). No static registration: every op is one row here.
#pragma once

#include <memory>
#include <vector>

#include "harness/op.h"

namespace samebits {

// The built-in ops, in the order `samebits list` shows them: one row per op, whose factory
// make_<op>_op() lives in the file named after it (<op>_op.cpp, sum_mean_ops.cpp,
// softmax_log_softmax_ops.cpp, matmul_linear_ops.cpp, sdpa/op.cpp, decoder/op.cpp; add_rmsnorm
// beside rmsnorm in rmsnorm_op.cpp).
#define SAMEBITS_BUILTIN_OPS(X) \
  X(sum)                        \
  X(mean)                       \
  X(softmax)                    \
  X(log_softmax)                \
  X(topk)                       \
  X(sort)                       \
  X(matmul)                     \
  X(linear)                     \
  X(rmsnorm)                    \
  X(add_rmsnorm)                \
  X(sdpa)                       \
  X(indexer)                    \
  X(decoder)

#define SAMEBITS_DECLARE_OP(name) std::unique_ptr<Op> make_##name##_op();
SAMEBITS_BUILTIN_OPS(SAMEBITS_DECLARE_OP)
#undef SAMEBITS_DECLARE_OP

// One adapter of every row, in the table's order.
std::vector<std::unique_ptr<Op>> make_builtin_ops();

}  // namespace samebits
