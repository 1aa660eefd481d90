// The samebits command line as a function of its op set, so that a test binary can be the whole
// CLI with ops of its own (tests/faults): parses, runs a subcommand, maps failures to exit codes.
#include "cli/cli_main.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "cli/commands.h"
#include "common/errors.h"
#include "harness/device_choice.h"
#include "harness/environment.h"
#include "reports/model/outcome.h"

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
  2  usage or contract error (the message names the file, the JSON path and what is accepted);
     an input or output file (--baseline, --report, --junit, the journal, ...) that cannot be
     read or written, or a journal another run is writing: all found before any case runs
  3  infrastructure error: a case could not run (CUDA error, out of memory; with --isolate, a
     case that crashed or timed out) or an output could not be written after all (the summary
     says exit 3 too); the other cases still ran and the report says which (a case that broke
     the CUDA context ends a run without --isolate, and the report names it)

Reports: `run` writes samebits-report.json and `sweep` samebits-sweep.json.gz (gzipped: a sweep
holds thousands of cases) in the current folder unless --report says otherwise; a report names its contracts, environment and every case, and
`samebits run REPORT --case ID` reruns any of its cases with the same inputs.
`samebits list` shows each op's axes and defaults, `samebits SUBCOMMAND --help` its options.)";

// A closed stdout, stderr or stdin (`>&-`) would hand its number to the next file opened (a
// journal, a report's temporary file), and the summary would be written into it: each closed one
// is opened on /dev/null first: a run without streams still runs, reports and exits with its code.
void keep_standard_streams_open() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int null = ::open("/dev/null", O_RDWR);
    if (null >= 0 && null != fd) {
      ::dup2(null, fd);
      ::close(null);
    }
  }
}

// The last words of a failed command: never throws (fmt::print does when stderr is unwritable, and
// a second exception here would end in std::terminate, SIGABRT).
void say(const char* prefix, const char* what) {
  std::fprintf(stderr, "%s%s\n", prefix, what);
  std::fflush(stderr);
}

}  // namespace

namespace samebits {

int cli_main(int argc, char** argv, OpSet ops) {
  keep_standard_streams_open();
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
  auto show_code = setup_show_command(app);
  auto localize_code = setup_localize_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  } catch (const ContractError& e) {
    say("samebits: ", e.what());
    return kExitUsage;
  } catch (const InfrastructureError& e) {
    say("samebits: ", e.what());
    return kExitInfrastructure;
  } catch (const std::exception& e) {
    say("samebits: internal error: ", e.what());
    return kExitInfrastructure;
  }
  for (const auto& code : {run_code, list_code, validate_code, sweep_code, baseline_code,
                           report_code, show_code, localize_code}) {
    if (*code >= 0) return *code;
  }
  return kExitUsage;
}

}  // namespace samebits
