// samebits_with_faults: the whole samebits command line, with the test-only planted_fault op beside
// the built-in ones, so the fault tests run it the way users run samebits.
#include "cli/cli_main.h"
#include "tests/faults/planted_fault_op.h"

int main(int argc, char** argv) {
  return samebits::cli_main(argc, argv, &samebits::ops_with_planted_faults);
}
