// The ops the subcommands know: the built-in ones, unless the binary's main() chose others (the
// test-only samebits_with_faults adds an op that crashes and hangs on demand, tests/faults).
#pragma once

#include "harness/op_registry.h"

namespace samebits {

using OpSet = OpRegistry (*)();

// Set once, by cli_main, before any command runs.
void use_command_ops(OpSet ops);
OpRegistry command_ops();

}  // namespace samebits
