// samebits.run() and samebits.render() in C++: the RunRequest `samebits run` builds, from
// Python's arguments, through the same plan_run / execute_run and the same report writers.
#include "python/src/engine_call.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "cli/render_options.h"
#include "cli/report_output.h"
#include "cli/stop_signals.h"
#include "common/errors.h"
#include "contracts/contract.h"
#include "harness/contract_loading.h"
#include "harness/device_choice.h"
#include "harness/environment.h"
#include "harness/pipeline.h"
#include "reports/model/baseline.h"
#include "reports/model/json_report.h"
#include "reports/model/report_reader.h"

namespace samebits {
namespace {

// `value` is one of `accepted`, else a ContractError naming the argument (CLI11 checks these for
// the command line; Python's arguments are checked here).
void check_member(const char* argument, const std::string& value,
                  const std::vector<std::string>& accepted) {
  if (std::find(accepted.begin(), accepted.end(), value) != accepted.end()) return;
  throw ContractError(fmt::format("samebits.run: {} must be one of {}, got \"{}\"", argument,
                                  fmt::join(accepted, ", "), value));
}

void check_call(const EngineCall& call) {
  check_member("device", call.device, {"auto", "cpu", "cuda"});
  check_member("capture", call.capture, {"auto", "on", "off"});
  if (call.jobs < 0 || call.jobs > 256) {
    throw ContractError(fmt::format(
        "samebits.run: jobs takes 0 (auto) or a whole number from 1 to 256, got {}", call.jobs));
  }
  for (const auto& path : call.contracts) {
    if (path.empty()) throw ContractError("samebits.run: an empty contract path");
  }
}

// The `samebits run` command line that reruns this call, for the report (and its rerun hints).
std::vector<std::string> command_line(const EngineCall& call) {
  std::vector<std::string> argv = {"samebits", "run"};
  argv.insert(argv.end(), call.contracts.begin(), call.contracts.end());
  argv.insert(argv.end(), {"--device", call.device});
  if (!call.filter.empty()) argv.insert(argv.end(), {"--filter", call.filter});
  if (!call.case_id.empty()) argv.insert(argv.end(), {"--case", call.case_id});
  if (call.seed != 0) argv.insert(argv.end(), {"--seed", std::to_string(call.seed)});
  if (call.capture != "auto") argv.insert(argv.end(), {"--capture", call.capture});
  if (call.jobs != 0) argv.insert(argv.end(), {"--jobs", std::to_string(call.jobs)});
  for (const auto& path : call.observations) argv.insert(argv.end(), {"--observations", path});
  if (!call.report.empty()) argv.insert(argv.end(), {"--report", call.report});
  return argv;
}

}  // namespace

EngineResult run_engine(const EngineCall& call, const OpRegistry& ops) {
  check_call(call);
  const auto contracts = load_contracts(call.contracts);
  return run_engine(call, contracts, ops);
}

EngineResult run_engine(const EngineCall& call,
                        const std::vector<std::unique_ptr<Contract>>& contracts,
                        const OpRegistry& ops) {
  check_call(call);
  RunRequest request;
  request.contracts = &contracts;
  request.registry = &ops;
  request.device = call.device;
  request.selection.filter = call.filter;
  request.selection.case_id = call.case_id;
  request.seed = call.seed;
  request.capture = call.capture;
  request.jobs = call.jobs;
  request.progress = call.progress;
  request.command = command_line(call);
  request.named = call.contracts;
  // As `samebits run`: the platforms named first (they can refine an embedded one).
  for (const auto& path : call.observations) {
    try {
      request.recorded.push_back(load_baseline_file(path));
    } catch (const ContractError& e) {
      throw ContractError(fmt::format("samebits.run: observations: {}", e.what()));
    }
  }
  for (auto& b : embedded_baselines()) request.recorded.push_back(std::move(b));
  const PlannedRun plan = plan_run(request);
  if (!call.report.empty()) check_report_target(call.report);  // before any case runs

  EngineResult result;
  Report report;
  {
    // Ctrl-C stops the run after the case under way, as on the command line (Python's handler
    // cannot run while the engine holds the thread); the caller raises KeyboardInterrupt.
    const StopSignals stop;
    request.stop = stop.flag();
    report = execute_run(request, plan);
  }
  result.interrupted = report.settings.interrupted.has_value();
  if (!call.report.empty()) {
    if (auto error = write_report_file(report, call.report)) {
      throw InfrastructureError(
          fmt::format("samebits.run: the report was not written: {}", *error));
    }
  }
  result.report_json = render_report(report_to_json(report));
  result.exit_code = report.summary.exit_code;
  return result;
}

void render_report_file(const std::string& report_path, const std::string& format,
                        const std::string& out) {
  RenderTargets targets;
  if (format == "html") {
    targets.html = out;
  } else if (format == "markdown") {
    targets.markdown = out;
  } else if (format == "junit") {
    targets.junit = out;
  } else {
    throw ContractError(fmt::format(
        "samebits.render: format must be one of html, markdown, junit, got \"{}\"", format));
  }
  if (out.empty()) throw ContractError("samebits.render: an empty output path");
  const Report report = read_report_file(report_path);
  check_output_targets({{"out", out}});
  targets.report_path = report_path;
  render_report(report, targets);
}

std::string engine_version() {
  return tool_info().version;
}

}  // namespace samebits
