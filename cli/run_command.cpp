// `samebits run [CONTRACT...]`: plans the cases, runs them on one device, judges each check against
// its expectation, writes the JSON report atomically and prints the summary table.
#include <fmt/format.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "cli/all_devices.h"
#include "cli/case_timeout_option.h"
#include "cli/command_ops.h"
#include "cli/commands.h"
#include "cli/isolated_child.h"
#include "cli/isolated_run.h"
#include "cli/render_options.h"
#include "cli/report_output.h"
#include "cli/seed_option.h"
#include "cli/shard_option.h"
#include "cli/stop_signals.h"
#include "contracts/baseline.h"
#include "contracts/contract_error.h"
#include "harness/contract_loading.h"
#include "harness/pipeline.h"
#include "harness/progress.h"
#include "reports/outcome.h"
#include "reports/report_writer.h"
#include "reports/run_comparison.h"

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
  std::vector<std::string> observations;
  std::string baseline;
  bool fail_on_drift = false;
  std::string shard;
  std::string devices;
  std::string journal;  // default: REPORT.journal
  std::string resume;
  bool isolate = false;
  std::string case_timeout;  // seconds (case_timeout_validator), "" for none
  // The hidden options of `--isolate`'s children (cli/isolated_child.h); -1: not a child.
  int isolated_child = -1;
  int isolated_restart = 0;
  int isolated_stop = 0;
  RenderTargets render;
};

// `--baseline`: the comparison printed after the summary and kept in the report; a verdict
// change (or with --fail-on-drift, drift) turns an otherwise passing run into exit 1.
std::string compare_with_baseline(const RunOptions& o, Report& report) {
  const Baseline baseline = load_baseline_file(o.baseline);
  const RunComparison c = compare_runs(baseline, report, "this run");
  report.baseline_comparison = run_comparison_to_json(c);
  report.baseline_comparison["baseline"] = o.baseline;
  if (c.gates(o.fail_on_drift) && report.summary.exit_code == kExitAsExpected) {
    report.summary.exit_code = kExitUnexpected;
  }
  return fmt::format("\n{}baseline: {}\n", comparison_text(c),
                     c.gates(o.fail_on_drift) ? "FAIL (exit 1)" : "ok");
}

int run(const RunOptions& o, const std::vector<std::string>& argv) {
  if (!o.devices.empty()) {
    if (!o.shard.empty()) throw ContractError("--devices all makes its own shares: drop --shard");
    if (!o.baseline.empty()) {
      throw ContractError(
          "--devices all with --baseline: merge first, then compare with "
          "`samebits report diff` or rerun with --baseline on one device");
    }
    return run_on_all_devices(argv, o.report, o.render);
  }
  if (!o.case_timeout.empty() && !o.isolate) {
    throw ContractError(
        "--case-timeout needs --isolate: only a case in a child process can be killed and the run "
        "go on");
  }
  const std::string journal_path = o.journal.empty() ? o.report + ".journal" : o.journal;
  if (o.isolate && o.isolated_child < 0) {
    IsolateOptions isolate;
    isolate.journal = journal_path;
    if (!o.case_timeout.empty()) isolate.case_timeout = std::stod(o.case_timeout);
    return run_isolated(argv, isolate);
  }
  const bool child = o.isolated_child >= 0;
  std::optional<PipeEvents> events;
  if (child) events.emplace(o.isolated_child);
  const auto contracts = load_contracts(o.contracts);
  const OpRegistry registry = command_ops();
  RunRequest request;
  request.contracts = &contracts;
  request.registry = &registry;
  request.device = o.device;
  const Shard shard = resolve_shard(o.shard, [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  });
  request.selection = {o.filter, o.case_id, shard.index, shard.count};
  request.seed = o.seed;
  request.capture = o.capture;
  request.progress = stderr_is_terminal();
  request.command = without_isolation_options(argv);
  request.named = o.contracts;
  // The platforms the command names come first: they can refine an embedded one.
  for (const auto& path : o.observations) request.recorded.push_back(load_baseline_file(path));
  for (auto& b : embedded_baselines()) request.recorded.push_back(std::move(b));
  const PlannedRun plan = plan_run(request);
  if (o.dry_run) {
    for (const auto& c : plan.cases) fmt::print("{}\n", c.id);
    return kExitAsExpected;
  }
  check_report_target(o.report);
  fmt::print(stderr, "samebits: {} cases from {} of {} contracts on {}{}\n", plan.cases.size(),
             plan.contracts_selected, contracts.size(), plan.device_name,
             shard.count > 1
                 ? fmt::format(" (share {}/{}, from {})", shard.index, shard.count, shard.from)
                 : "");
  request.journal = journal_path;
  request.resume = child && o.isolated_restart > 0 ? journal_path : o.resume;
  if (child) {
    request.journal_every_case = true;
    request.events = &*events;
  }
  Report report;
  {
    const StopSignals stop;
    // A child asked for the partial report of a stopped run: stopped from the start.
    static volatile std::sig_atomic_t stopped_before = 0;
    stopped_before = o.isolated_stop;
    request.stop = o.isolated_stop != 0 ? &stopped_before : stop.flag();
    report = execute_run(request, plan);
  }
  if (child) {
    report.settings["isolate"] =
        Json{{"children", o.isolated_restart + 1},
             {"case_timeout_s",
              o.case_timeout.empty() ? Json(nullptr) : Json(std::stod(o.case_timeout))}};
  }
  const bool broken = report.settings.contains("context_broken");
  // The runner told the parent, and the journal holds the cases: the next child goes on.
  if (broken && child) return kExitInfrastructure;
  if (report.settings.contains("journal_error")) {
    fmt::print(stderr, "samebits: warning: the run kept no (whole) journal: {}\n",
               report.settings["journal_error"].get<std::string>());
  }
  const bool interrupted = report.settings.contains("interrupted");
  const std::string comparison = o.baseline.empty() ? "" : compare_with_baseline(o, report);
  const auto write_error = write_report_file(report, o.report);
  ConsoleSummaryWriter(stdout).write(report);
  fmt::print("{}", comparison);
  print_report_outcome(o.report, write_error);
  if (interrupted) {
    fmt::print(stderr,
               "samebits: interrupted by {} after {} of {} cases; the journal keeps them: rerun "
               "the same command with --resume {} to run the rest\n",
               report.settings["interrupted"]["signal"].get<std::string>(), report.cases.size(),
               plan.cases.size(), request.journal);
    return kExitInfrastructure;
  }
  if (broken) {
    fmt::print(stderr,
               "samebits: the CUDA context broke in case {}; the run ended after it ({} of {} "
               "cases). The journal {} keeps them: rerun the same command with --resume {} (a "
               "fresh process) or with --isolate to run the rest\n",
               report.settings["context_broken"]["case"].get<std::string>(), report.cases.size(),
               plan.cases.size(), request.journal, request.journal);
    return kExitInfrastructure;
  }
  if (write_error) return kExitInfrastructure;
  // The report holds every case now: the journal has served.
  std::error_code ec;
  std::filesystem::remove(request.journal, ec);
  RenderTargets targets = o.render;
  targets.report_path = o.report;
  render_report(report, targets);
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
  cmd->add_option(
      "--filter", options->filter,
      "run only cases whose id matches this POSIX extended regex at its start or at the start of a "
      "part (after / or ,): 'softmax/', 'batch_invariance', 'dtype=bfloat16'");
  cmd->add_option("--case", options->case_id, "run exactly the case with this id");
  cmd->add_option("--seed", options->seed, "seed from which every case's inputs derive (default 0)")
      ->check(seed_validator());
  cmd->add_option("--report", options->report,
                  "where to write the JSON report (default: samebits-report.json here)");
  cmd->add_flag("--dry-run", options->dry_run, "list the selected case ids without running them");
  cmd->add_option("--journal", options->journal,
                  "where each finished case is appended as it ends (default: REPORT.journal; "
                  "removed once the report holds every case)");
  cmd->add_option("--resume", options->resume,
                  "the journal of an interrupted run of the same command: its cases are taken, "
                  "the rest run (the report equals an uninterrupted run's)");
  cmd->add_option("--observations", options->observations,
                  "baselines of recorded platforms besides the embedded ones (samebits baseline "
                  "write): the first covering this machine gives observed implementations their "
                  "expectations");
  cmd->add_option("--baseline", options->baseline,
                  "compare with a baseline (samebits baseline write): a changed check verdict "
                  "exits 1, cases with other bits are listed as drift");
  cmd->add_flag("--fail-on-drift", options->fail_on_drift,
                "with --baseline: exit 1 also when a case's digests drifted");
  cmd->add_option("--shard", options->shard,
                  "run share I of N (0 <= I < N) of the selected cases, split by a hash of the "
                  "case id; default from SLURM_ARRAY_TASK_ID/_COUNT or JOB_COMPLETION_INDEX/"
                  "JOB_COMPLETIONS; `samebits report merge` joins the shares");
  cmd->add_option("--devices", options->devices,
                  "all: one share per visible GPU, in parallel, merged into --report")
      ->check(CLI::IsMember({"all"}));
  cmd->add_option("--capture", options->capture,
                  "record the CUDA kernels each case launched (CUPTI): auto (on CUDA when CUPTI is "
                  "free), on (fail if it cannot), off")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  cmd->add_flag("--isolate", options->isolate,
                "run the cases in child processes: a case that crashes (a signal, an illegal "
                "memory access) is recorded as crashed, one past --case-timeout as timed_out, and "
                "a fresh process (a fresh CUDA context) runs the rest");
  cmd->add_option("--case-timeout", options->case_timeout,
                  "with --isolate: seconds one case may run before its process is killed and the "
                  "case recorded as timed_out (a number in (0, 604800]; default: no limit)")
      ->check(case_timeout_validator());
  cmd->add_option(kIsolatedChild, options->isolated_child)->group("");
  cmd->add_option(kIsolatedRestart, options->isolated_restart)->group("");
  cmd->add_option(kIsolatedStop, options->isolated_stop)->group("");
  add_render_options(*cmd, options->render);
  std::vector<std::string> args(argv, argv + argc);
  cmd->callback([options, code, args] { *code = run(*options, args); });
  return code;
}

}  // namespace samebits
