// `samebits run [CONTRACT...]`: plans the cases, runs them on one device, judges each check against
// its expectation, writes the JSON report atomically and prints the summary table.
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/report_output.h"
#include "harness/contract_loading.h"
#include "harness/pipeline.h"
#include "harness/progress.h"
#include "reports/outcome.h"
#include "reports/report_writer.h"

namespace samebits {
namespace {

struct RunOptions {
  std::vector<std::string> contracts;
  std::string device = "auto";
  std::string filter;
  std::string case_id;
  std::uint64_t seed = 0;
  std::string report = "samebits-report.json";
  bool dry_run = false;
  std::string capture = "auto";
};

int run(const RunOptions& o, const std::vector<std::string>& argv) {
  const auto contracts = load_contracts(o.contracts);
  const OpRegistry registry = OpRegistry::builtin();
  RunRequest request;
  request.contracts = &contracts;
  request.registry = &registry;
  request.device = o.device;
  request.selection = {o.filter, o.case_id};
  request.seed = o.seed;
  request.capture = o.capture;
  request.progress = stderr_is_terminal();
  request.command = argv;
  request.named = o.contracts;
  const PlannedRun plan = plan_run(request);
  if (o.dry_run) {
    for (const auto& c : plan.cases) fmt::print("{}\n", c.id);
    return kExitAsExpected;
  }
  fmt::print(stderr, "samebits: {} cases from {} of {} contracts on {}\n", plan.cases.size(),
             plan.contracts_selected, contracts.size(), plan.device_name);
  const Report report = execute_run(request, plan);
  ConsoleSummaryWriter(stdout).write(report);
  if (!write_report_file(report, o.report)) return kExitInfrastructure;
  return report.summary.exit_code;
}

}  // namespace

std::shared_ptr<int> setup_run_command(CLI::App& app, int argc, char** argv) {
  auto options = std::make_shared<RunOptions>();
  auto code = std::make_shared<int>(-1);
  auto* cmd = app.add_subcommand(
      "run", "Run contracts (default: the embedded suite) and write a report (exit codes below)");
  cmd->add_option("contracts", options->contracts,
                  "contract files or folders, or a report to rerun its contracts (default: the "
                  "embedded suite)");
  cmd->add_option("--device", options->device, "where to run: auto (CUDA if present), cpu, cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_option("--filter", options->filter,
                  "run only cases whose id matches this regex at its start or at the start of a "
                  "part (after / or ,): 'softmax/', 'batch_invariance', 'dtype=bfloat16'");
  cmd->add_option("--case", options->case_id, "run exactly the case with this id");
  cmd->add_option("--seed", options->seed,
                  "seed from which every case's inputs derive (default 0)");
  cmd->add_option("--report", options->report,
                  "where to write the JSON report (default: samebits-report.json here)");
  cmd->add_flag("--dry-run", options->dry_run, "list the selected case ids without running them");
  cmd->add_option("--capture", options->capture,
                  "record the CUDA kernels each case launched (CUPTI): auto (on CUDA when CUPTI is "
                  "free), on (fail if it cannot), off")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  std::vector<std::string> args(argv, argv + argc);
  cmd->callback([options, code, args] { *code = run(*options, args); });
  return code;
}

}  // namespace samebits
