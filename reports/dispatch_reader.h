// Reading a sweep report's "dispatch" section back into the DispatchMap model (the inverse of
// dispatch_to_json), so a sweep report can be rendered or compared later.
#pragma once

#include <string>

#include "contracts/json_document.h"
#include "reports/dispatch_map.h"

namespace samebits {

// Throws ContractError naming `source` and the JSON path under /dispatch.
DispatchMap dispatch_from_json(const Json& dispatch, const std::string& source);

}  // namespace samebits
