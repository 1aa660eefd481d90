// The axes each check kind reads (batch size, position, layout, padding, chunk, ...), with their
// defaults: the other half, beside the op's own axes, of what a contract's sweep may name.
#pragma once

#include <vector>

#include "contracts/contract.h"
#include "harness/op.h"

namespace samebits {

std::vector<AxisSpec> check_axes(CheckKind kind);

// The batch index a position axis names ("first", "middle", "last") in a batch of `batch`.
std::int64_t position_index(const std::string& position, std::int64_t batch);

}  // namespace samebits
