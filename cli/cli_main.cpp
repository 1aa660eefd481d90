// The samebits command line as a function of its op set, so that a test binary can be the whole
// CLI with ops of its own (tests/faults): parses, runs a subcommand, maps failures to exit codes.
#include "cli/cli_main.h"

#include <fmt/format.h>

#include "cli/commands.h"
#include "contracts/contract_error.h"
#include "harness/device_choice.h"
#include "harness/environment.h"
#include "reports/outcome.h"

static_assert(
    FMT_VERSION == SAMEBITS_EXPECTED_FMT_VERSION,
    "fmt headers differ from the fmt library linked (LibTorch's bundled fmt shadowed it?)");

namespace {

constexpr const char* kFooter = R"(Exit codes:
  0  every check's outcome as expected (sweeps: every case ran); findings on a platform that no
     recorded observation covers, and subsets that missed an expected violation, do not gate
  1  an unexpected outcome: a broken promise, or on a recorded platform a new violation or an
     expected violation that now holds over the whole check; with --baseline, a check verdict
     that changed (with --fail-on-drift, also a case whose bits changed)
  2  usage or contract error (the message names the file, the JSON path and what is accepted)
  3  infrastructure error: a case could not run (CUDA error, out of memory; with --isolate, a
     case that crashed or timed out) or the report could not be written; the other cases still
     ran and the report says which (a case that broke the CUDA context ends a run without
     --isolate, and the report names it)

Reports: `run` writes samebits-report.json and `sweep` samebits-sweep.json in the current folder
unless --report says otherwise; a report names its contracts, environment and every case, and
`samebits run REPORT --case ID` reruns any of its cases with the same inputs.
`samebits list` shows each op's axes and defaults, `samebits SUBCOMMAND --help` its options.)";

}  // namespace

namespace samebits {

int cli_main(int argc, char** argv, OpSet ops) {
  use_command_ops(ops);
  CLI::App app{"samebits: numerical-reproducibility contracts for GPU kernels"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_line(), "print the version and exit");
  app.footer(kFooter);
  auto run_code = setup_run_command(app, argc, argv);
  auto list_code = setup_list_command(app);
  auto validate_code = setup_validate_command(app);
  auto sweep_code = setup_sweep_command(app, argc, argv);
  auto baseline_code = setup_baseline_command(app);
  auto report_code = setup_report_command(app, argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  } catch (const ContractError& e) {
    fmt::print(stderr, "samebits: {}\n", e.what());
    return kExitUsage;
  } catch (const InfrastructureError& e) {
    fmt::print(stderr, "samebits: {}\n", e.what());
    return kExitInfrastructure;
  } catch (const std::exception& e) {
    fmt::print(stderr, "samebits: internal error: {}\n", e.what());
    return kExitInfrastructure;
  }
  for (const auto& code :
       {run_code, list_code, validate_code, sweep_code, baseline_code, report_code}) {
    if (*code >= 0) return *code;
  }
  return kExitUsage;
}

}  // namespace samebits
