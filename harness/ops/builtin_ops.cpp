// The list of built-in op adapters, in the order `samebits list` shows them.
// Adding an op: write harness/ops/<op>_op.cpp with its factory, declare it in ops.h, list it here,
// ship contracts/<op>.json (tests/ops/ then runs it with a planted flaw per check kind).
#include "harness/ops/ops.h"

namespace samebits {

std::vector<std::unique_ptr<Op>> make_builtin_ops() {
  std::vector<std::unique_ptr<Op>> ops;
  ops.push_back(make_sum_op());
  ops.push_back(make_mean_op());
  ops.push_back(make_softmax_op());
  ops.push_back(make_log_softmax_op());
  ops.push_back(make_topk_op());
  ops.push_back(make_sort_op());
  ops.push_back(make_matmul_op());
  ops.push_back(make_linear_op());
  ops.push_back(make_rmsnorm_op());
  ops.push_back(make_sdpa_op());
  ops.push_back(make_indexer_op());
  return ops;
}

}  // namespace samebits
