// `samebits run [CONTRACT...]`: plans the cases, runs them on one device, judges each check against
// its expectation, writes the JSON report atomically and prints the summary table.
#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <regex>

#include "cli/capture_option.h"
#include "cli/commands.h"
#include "cli/report_output.h"
#include "contracts/contract_error.h"
#include "harness/contract_loading.h"
#include "harness/device_choice.h"
#include "harness/environment.h"
#include "harness/kernel_capture.h"
#include "harness/plan.h"
#include "harness/progress.h"
#include "harness/runner.h"
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

// The device named by a case id (contract/check/impl/device/...), or "".
std::string device_of_case(const std::string& id) {
  std::size_t pos = 0;
  for (int i = 0; i < 3 && pos != std::string::npos; ++i)
    pos = id.find('/', pos == 0 ? 0 : pos + 1);
  if (pos == std::string::npos) return "";
  const auto end = id.find('/', pos + 1);
  return id.substr(pos + 1, end == std::string::npos ? std::string::npos : end - pos - 1);
}

std::vector<CaseSpec> select(std::vector<CaseSpec> cases, const RunOptions& o) {
  if (!o.case_id.empty()) {
    for (auto& c : cases) {
      if (c.id == o.case_id) return {std::move(c)};
    }
    std::string hint;
    const std::string prefix = o.case_id.substr(0, o.case_id.rfind('/') + 1);
    int shown = 0;
    for (const auto& c : cases) {
      if (!prefix.empty() && c.id.rfind(prefix, 0) == 0 && shown < 5) {
        hint += "\n  " + c.id;
        ++shown;
      }
    }
    throw ContractError(fmt::format("--case: no case has the id \"{}\"{}", o.case_id,
                                    hint.empty() ? " (`samebits run --dry-run` lists them)"
                                                 : "; cases with the same prefix:" + hint));
  }
  if (o.filter.empty()) return cases;
  std::regex re;
  try {
    re = std::regex(o.filter, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw ContractError(
        fmt::format("--filter: invalid regular expression \"{}\": {}", o.filter, e.what()));
  }
  std::vector<CaseSpec> kept;
  for (auto& c : cases) {
    if (std::regex_search(c.id, re)) kept.push_back(std::move(c));
  }
  return kept;
}

int run(const RunOptions& o, const std::vector<std::string>& argv) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto contracts = load_contracts(o.contracts);
  std::string requested = o.device;
  if (!o.case_id.empty()) {
    const std::string wanted = device_of_case(o.case_id);
    if (requested == "auto" && !wanted.empty()) requested = wanted;
    if (!wanted.empty() && requested != wanted) {
      throw ContractError(
          fmt::format("--case {} runs on {}, but --device says {}", o.case_id, wanted, requested));
    }
  }
  const at::Device device = choose_device(requested);
  const std::string device_name = device.is_cuda() ? "cuda" : "cpu";
  const OpRegistry registry = OpRegistry::builtin();
  auto cases = select(plan_cases(contracts, registry, device_name, o.seed), o);
  if (cases.empty()) throw ContractError(fmt::format("--filter \"{}\" selects no case", o.filter));
  if (o.dry_run) {
    for (const auto& c : cases) fmt::print("{}\n", c.id);
    return kExitAsExpected;
  }
  fmt::print(stderr, "samebits: {} cases from {} contracts on {}\n", cases.size(), contracts.size(),
             device_name);

  Report report;
  report.created = utc_timestamp();
  report.tool = tool_block();
  report.command = argv;
  report.settings =
      Json{{"device", device_name},
           {"seed", o.seed},
           {"filter", o.filter.empty() ? Json(nullptr) : Json(o.filter)},
           {"case", o.case_id.empty() ? Json(nullptr) : Json(o.case_id)},
           {"contracts", o.contracts.empty() ? Json("embedded default suite") : Json(o.contracts)}};
  report.environment = environment_block(device);
  for (const auto& c : contracts) {
    report.contracts.push_back({c->name, c->source, c->sha256, c->op, c->description});
  }
  CaptureChoice capture = start_capture(o.capture, device);
  report.settings["kernel_capture"] = capture.state;
  report.cases =
      run_cases(cases, device, RunnerOptions{stderr_is_terminal(), capture.capture.get()});
  if (capture.capture && capture.capture->dropped_records() > 0) {
    report.settings["kernel_capture_dropped_records"] = capture.capture->dropped_records();
  }
  report.checks = judge_checks(report.cases);
  report.summary = summarize(report.cases, report.checks);
  report.summary.duration_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  ConsoleSummaryWriter(stdout).write(report);
  if (!write_report_file(report, o.report)) return kExitInfrastructure;
  return report.summary.exit_code;
}

}  // namespace

std::shared_ptr<int> setup_run_command(CLI::App& app, int argc, char** argv) {
  auto options = std::make_shared<RunOptions>();
  auto code = std::make_shared<int>(-1);
  auto* cmd =
      app.add_subcommand("run", "Run contracts (default: the embedded suite) and write a report");
  cmd->add_option("contracts", options->contracts,
                  "contract files or folders (default: embedded suite)");
  cmd->add_option("--device", options->device, "where to run: auto (CUDA if present), cpu, cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_option("--filter", options->filter, "run only cases whose id matches this regex");
  cmd->add_option("--case", options->case_id, "run exactly the case with this id");
  cmd->add_option("--seed", options->seed,
                  "seed from which every case's inputs derive (default 0)");
  cmd->add_option("--report", options->report, "where to write the JSON report");
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
