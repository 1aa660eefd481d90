// The samebits command line as a function of its op set, so that a test binary can be the whole
// CLI with ops of its own (tests/faults): parses, runs a subcommand, maps failures to exit codes.
#pragma once

#include "cli/command_ops.h"

namespace samebits {

int cli_main(int argc, char** argv, OpSet ops);

}  // namespace samebits
