// samebits: do I get the same bits for the same item, whatever the batch around it, the padding,
// the stride and the chunking? Entry point: the command line with the built-in ops.
#include "cli/cli_main.h"

int main(int argc, char** argv) {
  return samebits::cli_main(argc, argv, &samebits::OpRegistry::builtin);
}
