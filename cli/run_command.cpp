// `samebits run [CONTRACT...]`: plans the cases, runs them on one device, judges each check against
// its expectation, writes the JSON report atomically and prints the summary table.
#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "cli/all_devices.h"
#include "cli/case_timeout_option.h"
#include "cli/command_ops.h"
#include "cli/commands.h"
#include "cli/console_options.h"
#include "cli/isolated_child.h"
#include "cli/isolated_run.h"
#include "cli/jobs_option.h"
#include "cli/render_options.h"
#include "cli/report_output.h"
#include "cli/seed_option.h"
#include "cli/shard_option.h"
#include "cli/stop_signals.h"
#include "common/errors.h"
#include "harness/contract_loading.h"
#include "harness/pipeline.h"
#include "harness/progress.h"
#include "reports/model/baseline.h"
#include "reports/model/case_journal.h"
#include "reports/model/outcome.h"
#include "reports/model/run_comparison.h"
#include "reports/render/case_detail.h"
#include "reports/render/report_writer.h"

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
  std::string jobs = "auto";
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
  ConsoleOptions console;
};

// An input file named by an option, loaded before any case runs; a failure names the option.
template <typename Load>
auto named_input(const char* option, Load&& load) {
  try {
    return load();
  } catch (const ContractError& e) {
    throw ContractError(fmt::format("{}: {}", option, e.what()));
  }
}

// `--resume JOURNAL` names a file that is there (its lines are read when the run starts).
void check_resume_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) {
    throw ContractError(fmt::format(
        "--resume {}: no such file; give the journal of the interrupted run (REPORT.journal)",
        path));
  }
  if (!fs::is_regular_file(status)) {
    throw ContractError(fmt::format("--resume {}: not a regular file (a journal is a file)", path));
  }
}

// How the command named the journal, for messages: --journal, or --report's.
std::string journal_option(const RunOptions& o) {
  return o.journal.empty() ? fmt::format("--report {}: its journal", o.report) : "--journal";
}

// Every file the run writes, by the option that names it (checked before any case runs).
std::vector<OutputTarget> output_targets(const RunOptions& o, const std::string& journal_path) {
  std::vector<OutputTarget> out = {{"--report", o.report}, {journal_option(o), journal_path}};
  for (auto& t : render_output_targets(o.render)) out.push_back(std::move(t));
  return out;
}

// `--baseline`: the comparison printed after the summary and kept in the report; a verdict
// change (or with --fail-on-drift, drift) turns an otherwise passing run into exit 1.
std::string compare_with_baseline(const RunOptions& o, const Baseline& baseline, Report& report) {
  RunComparison c = compare_runs(baseline, report, "this run");
  c.baseline_file = o.baseline;
  report.baseline_comparison = c;
  if (c.gates(o.fail_on_drift) && report.summary.exit_code == kExitAsExpected) {
    report.summary.exit_code = kExitUnexpected;
  }
  return fmt::format("\n{}baseline: {}\n", comparison_text(c),
                     c.gates(o.fail_on_drift) ? "FAIL (exit 1)" : "ok");
}

// What the end of a run wrote, for the lines printed after it.
struct RunEnd {
  std::string comparison;
  std::optional<std::string> write_error, render_error;
  bool journal_kept = false;
};

// The summary and the lines after it, once every file is written, so the exit code printed is
// the one returned. Printing never changes that code: a stdout or stderr that fails loses words.
void print_run_end(const RunOptions& o, const Report& report, const PlannedRun& plan,
                   const std::string& journal, const RunEnd& end) {
  try {
    if (report.settings.journal_error) {
      fmt::print(stderr, "samebits: warning: the run kept no (whole) journal: {}\n",
                 *report.settings.journal_error);
    }
    const ConsoleStyle style = console_style(o.console, stdout, o.report);
    ConsoleSummaryWriter(stdout, style).write(report);
    fmt::print("{}", end.comparison);
    // `--case`: the case it reran, in full; then the recap of what went wrong, last.
    if (!o.case_id.empty() && report.cases.size() == 1) {
      fmt::print("\n{}", case_detail_text(report.cases.front(), o.report, style.color));
    }
    ConsoleRecapWriter(stdout, style).write(report);
    print_report_outcome(o.report, end.write_error);
    if (end.render_error) {
      fmt::print(stderr, "samebits: {} (exit {}; the report holds the run)\n", *end.render_error,
                 static_cast<int>(kExitInfrastructure));
    }
    const bool broken = report.settings.context_broken.has_value();
    const std::string rest =
        end.journal_kept
            ? fmt::format(
                  "the journal {} keeps them: rerun the same command with --resume {}{} to run "
                  "the rest",
                  journal, journal, broken ? " (a fresh process) or with --isolate" : "")
            : fmt::format(
                  "no whole journal was kept, so a rerun runs every case again{}",
                  end.write_error
                      ? ""
                      : fmt::format(" (the report {} holds those that finished)", o.report));
    if (report.settings.interrupted) {
      fmt::print(stderr, "samebits: interrupted by {} after {} of {} cases; {}\n",
                 report.settings.interrupted->signal, report.cases.size(),
                 plan.cases.size(), rest);
    } else if (broken) {
      fmt::print(stderr,
                 "samebits: the CUDA context broke in case {}; the run ended after it ({} of {} "
                 "cases); {}\n",
                 report.settings.context_broken->case_id, report.cases.size(),
                 plan.cases.size(), rest);
    }
    std::fflush(stdout);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "samebits: the summary could not be printed: %s\n", e.what());
  }
}

int run(const RunOptions& o, const std::vector<std::string>& argv) {
  namespace fs = std::filesystem;
  if (!o.devices.empty()) {
    if (!o.shard.empty()) throw ContractError("--devices all makes its own shares: drop --shard");
    if (!o.baseline.empty()) {
      throw ContractError(
          "--devices all with --baseline: merge first, then compare with "
          "`samebits report diff` or rerun with --baseline on one device");
    }
    std::vector<OutputTarget> targets = {{"--report", o.report}};
    for (auto& t : render_output_targets(o.render)) targets.push_back(std::move(t));
    check_output_targets(targets);
    return run_on_all_devices(argv, o.report, o.render);
  }
  if (!o.case_timeout.empty() && !o.isolate) {
    throw ContractError(
        "--case-timeout needs --isolate: only a case in a child process can be killed and the run "
        "go on");
  }
  const std::string journal_path = o.journal.empty() ? o.report + ".journal" : o.journal;
  const bool child = o.isolated_child >= 0;
  if (o.isolate && !child && !o.dry_run) {
    // The parent loads nothing; its children check the inputs. The outputs and the journal's lock
    // are the parent's: it holds the lock across every child.
    check_output_targets(output_targets(o, journal_path));
    if (!o.resume.empty()) check_resume_file(o.resume);
    const JournalLock lock(journal_path, journal_option(o));
    IsolateOptions isolate;
    isolate.journal = journal_path;
    if (!o.case_timeout.empty()) isolate.case_timeout = std::stod(o.case_timeout);
    return run_isolated(argv, isolate);
  }
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
  request.jobs = jobs_from_text(o.jobs);
  request.progress = true;  // a bar on a terminal, lines elsewhere (harness/progress.h)
  request.command = without_isolation_options(argv);
  request.named = o.contracts;
  // The platforms the command names come first: they can refine an embedded one.
  for (const auto& path : o.observations) {
    request.recorded.push_back(
        named_input("--observations", [&] { return load_baseline_file(path); }));
  }
  for (auto& b : embedded_baselines()) request.recorded.push_back(std::move(b));
  std::optional<Baseline> baseline;
  if (!o.baseline.empty()) {
    baseline = named_input("--baseline", [&] { return load_baseline_file(o.baseline); });
  }
  const PlannedRun plan = plan_run(request);
  if (o.dry_run) {
    for (const auto& c : plan.cases) fmt::print("{}\n", c.id);
    return kExitAsExpected;
  }
  // Every file the run will write, and the journal's one writer, before any case runs.
  check_output_targets(output_targets(o, journal_path));
  request.journal = journal_path;
  request.resume = child && o.isolated_restart > 0 ? journal_path : o.resume;
  if (!request.resume.empty()) check_resume_file(request.resume);
  std::optional<JournalLock> lock;
  if (!child) lock.emplace(journal_path, journal_option(o));  // --isolate: the parent's
  fmt::print(stderr, "samebits: {} cases from {} of {} contracts on {}{}\n", plan.cases.size(),
             plan.contracts_selected, contracts.size(), plan.device_name,
             shard.count > 1
                 ? fmt::format(" (share {}/{}, from {})", shard.index, shard.count, shard.from)
                 : "");
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
    report.settings.isolate =
        IsolatedRun{o.isolated_restart + 1, o.case_timeout.empty()
                                                ? std::nullopt
                                                : std::optional<double>(std::stod(o.case_timeout))};
  }
  const bool broken = report.settings.context_broken.has_value();
  // The runner told the parent, and the journal holds the cases: the next child goes on.
  if (broken && child) return kExitInfrastructure;
  const bool complete = !broken && !report.settings.interrupted;
  RunEnd end;
  if (baseline) end.comparison = compare_with_baseline(o, *baseline, report);
  end.write_error = write_report_file(report, o.report);
  if (complete && !end.write_error) {
    RenderTargets targets = o.render;
    targets.report_path = o.report;
    try {
      render_report(report, targets);
    } catch (const std::exception& e) {
      end.render_error = e.what();
      report.summary.exit_code = kExitInfrastructure;
    }
    // The report holds every case now: the journal has served.
    std::error_code ec;
    fs::remove(request.journal, ec);
  }
  std::error_code ec;
  end.journal_kept = !report.settings.journal_error && fs::exists(journal_path, ec);
  print_run_end(o, report, plan, journal_path, end);
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
                  "where to write the JSON report (default: samebits-report.json here)")
      ->check(file_path_validator());
  cmd->add_flag("--dry-run", options->dry_run, "list the selected case ids without running them");
  cmd->add_option("--journal", options->journal,
                  "where each finished case is appended as it ends (default: REPORT.journal; "
                  "removed once the report holds every case)")
      ->check(file_path_validator());
  cmd->add_option("--resume", options->resume,
                  "the journal of an interrupted run of the same command: its cases are taken, "
                  "the rest run (the report equals an uninterrupted run's)")
      ->check(file_path_validator());
  cmd->add_option("--observations", options->observations,
                  "baselines of recorded platforms besides the embedded ones (samebits baseline "
                  "write): the first covering this machine gives observed implementations their "
                  "expectations")
      ->check(file_path_validator());
  cmd->add_option("--baseline", options->baseline,
                  "compare with a baseline (samebits baseline write): a changed check verdict "
                  "exits 1, cases with other bits are listed as drift")
      ->check(file_path_validator());
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
  add_jobs_option(*cmd, options->jobs);
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
  add_console_options(*cmd, options->console);
  std::vector<std::string> args(argv, argv + argc);
  cmd->callback([options, code, args] { *code = run(*options, args); });
  return code;
}

}  // namespace samebits
