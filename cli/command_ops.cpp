// The ops the subcommands know: the built-in ones, unless the binary's main() chose others (the
// test-only samebits_with_faults adds an op that crashes and hangs on demand, tests/faults).
#include "cli/command_ops.h"

namespace samebits {
namespace {

OpSet chosen = &OpRegistry::builtin;

}  // namespace

void use_command_ops(OpSet ops) {
  chosen = ops;
}

OpRegistry command_ops() {
  return chosen();
}

}  // namespace samebits
