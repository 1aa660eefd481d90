// PLACEHOLDER: replaced by the op adapter; returns nullptr so the registry skips it.
#include "harness/ops/ops.h"

namespace samebits {

std::unique_ptr<Op> make_sdpa_op() { return nullptr; }

}  // namespace samebits
