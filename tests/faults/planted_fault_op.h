// A test-only op that misbehaves on demand (its "fault" axis): it aborts, dereferences a null
// pointer, hangs, allocates absurdly, or on CUDA writes out of bounds or spins in a kernel.
#pragma once

#include <memory>

#include "harness/op.h"
#include "harness/op_registry.h"

namespace samebits {

// "planted_fault": x.sum(1) of [rows, N] items, after the fault named by the point's "fault" axis.
std::unique_ptr<Op> make_planted_fault_op();

// The built-in ops and planted_fault: the op set of samebits_with_faults.
OpRegistry ops_with_planted_faults();

}  // namespace samebits
