// `samebits sweep OP --vary AXIS=FIRST:LAST --layouts ...`: runs the sweep's cases through the same
// pipeline as `samebits run`, maps where kernels and bits change, and reports through the writers.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sstream>

#include "cli/command_ops.h"
#include "cli/commands.h"
#include "cli/jobs_option.h"
#include "cli/report_output.h"
#include "cli/seed_option.h"
#include "cli/sweep_contract.h"
#include "dispatch/classify.h"
#include "dispatch/observations.h"
#include "harness/pipeline.h"
#include "harness/progress.h"
#include "reports/model/outcome.h"
#include "reports/render/report_writer.h"

namespace samebits {
namespace {

struct SweepOptions {
  SweepSpec spec;
  std::string layouts = "contiguous";
  std::string device = "auto";
  std::uint64_t seed = 0;
  std::string report = "samebits-sweep.json.gz";
  std::string capture = "auto";
  std::string jobs = "auto";
  bool grid = false;
  bool print_contract = false;
};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

int sweep(SweepOptions o, const std::vector<std::string>& argv) {
  o.spec.layouts = split_list(o.layouts);
  if (o.spec.layouts.empty()) o.spec.layouts = {"contiguous"};
  for (const auto& arg : argv) {
    if (arg != "--print-contract") o.spec.command.push_back(arg);
  }
  const OpRegistry registry = command_ops();
  if (!o.print_contract) check_report_target(o.report);
  const std::string text = sweep_contract_json(o.spec, registry);
  if (o.print_contract) {
    fmt::print("{}", text);
    return kExitAsExpected;
  }
  std::vector<std::unique_ptr<Contract>> contracts;
  contracts.push_back(std::make_unique<Contract>(parse_contract(text, "sweep command line")));
  const Contract& contract = *contracts.front();

  RunRequest request;
  request.contracts = &contracts;
  request.registry = &registry;
  request.device = o.device;
  request.seed = o.seed;
  request.capture = o.capture;
  request.jobs = jobs_from_text(o.jobs);
  request.record_properties = true;
  request.progress = stderr_is_terminal();
  request.command = argv;
  request.named = {"built by samebits sweep (its text is in this report)"};
  const PlannedRun plan = plan_run(request);
  const std::string axis = swept_axis(o.spec);
  std::vector<std::string> compared;
  for (const auto& l : o.spec.layouts) {
    if (l != "contiguous") compared.push_back(l);
  }
  fmt::print(stderr, "samebits: sweeping {} ({}) over {}: {} cases on {}; {}\n", contract.op,
             contract.implementations.at(0), axis, plan.cases.size(), plan.device_name,
             sweep_check_kind(o.spec) == CheckKind::batch_invariance
                 ? std::string("the first item alone against it first in the batch")
             : compared.empty()
                 ? std::string("contiguous only, each point run twice")
                 : fmt::format("layouts {} against contiguous", fmt::join(compared, ", ")));
  Report report = execute_run(request, plan);
  report.dispatch = classify_dispatch(sweep_observations(report.cases, axis), contract.op,
                                      contract.implementations.at(0), axis, o.grid);
  const auto write_error = write_report_file(report, o.report);
  DispatchTableWriter(stdout).write(report);
  print_report_outcome(o.report, write_error);
  if (write_error) return kExitInfrastructure;
  fmt::print("rerun a point: samebits run {} --case ID (the ids are in the report)\n", o.report);
  return report.summary.exit_code;
}

}  // namespace

std::shared_ptr<int> setup_sweep_command(CLI::App& app, int argc, char** argv) {
  auto o = std::make_shared<SweepOptions>();
  auto code = std::make_shared<int>(-1);
  auto* cmd = app.add_subcommand(
      "sweep",
      "Map where an op's CUDA kernel and result bits change along one axis and across layouts");
  cmd->add_option("op", o->spec.op, "the op (samebits list shows them and their axes)")->required();
  cmd->add_option("--impl", o->spec.impl, "implementation (default: the op's first)");
  cmd->add_option("--set", o->spec.set,
                  "AXIS=VALUE held fixed (repeatable); the op's defaults fill the rest");
  cmd->add_option("--vary", o->spec.vary,
                  "AXIS=FIRST:LAST[:STEP] or AXIS=V1,V2,...; AXIS may be batch")
      ->required();
  cmd->add_option("--layouts", o->layouts,
                  "comma-separated layouts compared with the contiguous batch: strided:<gap>, "
                  "offset:<elements>, padded:<multiple> (default: contiguous alone, each point "
                  "run twice)");
  cmd->add_option("--batch", o->spec.batch, "items per call (default 1)");
  cmd->add_option("--check", o->spec.check,
                  "what each point compares: determinism (the default without --layouts), "
                  "layout_invariance (the default with them), or batch_invariance (the first item "
                  "alone vs first in the batch: with --vary batch=1:64, where the batch size "
                  "changes its bits)");
  cmd->add_option("--device", o->device, "auto, cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_option("--seed", o->seed, "seed of the inputs (default 0)")->check(seed_validator());
  cmd->add_option("--report", o->report,
                  "where to write the JSON report (default: samebits-sweep.json.gz here; a name ending in .gz is written gzipped)");
  cmd->add_option("--capture", o->capture, "kernel capture: auto, on, off")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  add_jobs_option(*cmd, o->jobs);
  cmd->add_flag("--signature-grid", o->grid, "count grid sizes as part of a kernel signature");
  cmd->add_flag("--print-contract", o->print_contract,
                "print the contract this sweep runs (to keep, edit or `samebits run`) and exit");
  std::vector<std::string> args(argv, argv + argc);
  cmd->callback([o, code, args] { *code = sweep(*o, args); });
  return code;
}

}  // namespace samebits
