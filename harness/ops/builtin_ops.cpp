// The built-in op adapters, one of each row of SAMEBITS_BUILTIN_OPS (harness/ops/ops.h), in order.
// Adding an op: see "Adding an op or a check kind" in README.md.
#include "harness/ops/ops.h"

namespace samebits {

std::vector<std::unique_ptr<Op>> make_builtin_ops() {
  std::vector<std::unique_ptr<Op>> ops;
#define SAMEBITS_MAKE_OP(name) ops.push_back(make_##name##_op());
  SAMEBITS_BUILTIN_OPS(SAMEBITS_MAKE_OP)
#undef SAMEBITS_MAKE_OP
  return ops;
}

}  // namespace samebits
