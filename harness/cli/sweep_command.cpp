// `samebits sweep OP --vary AXIS=FIRST:LAST --layouts ...`: maps where ATen's kernel choice and the
// result bits change across one axis, writes the report's dispatch section and prints the map.
#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <sstream>

#include "cli/capture_option.h"
#include "cli/commands.h"
#include "cli/report_output.h"
#include "contracts/contract_error.h"
#include "harness/device_choice.h"
#include "harness/dispatch_sweep.h"
#include "harness/environment.h"
#include "harness/kernel_capture.h"
#include "harness/op_registry.h"
#include "reports/dispatch.h"
#include "reports/outcome.h"
#include "reports/report_writer.h"

namespace samebits {
namespace {

struct SweepOptions {
  std::string op;
  std::string impl;
  std::vector<std::string> set;
  std::string vary;
  std::string layouts = "contiguous";
  std::int64_t batch = 1;
  std::string device = "auto";
  std::uint64_t seed = 0;
  std::string report = "samebits-sweep.json";
  std::string capture = "auto";
  bool grid = false;
};

// "7" -> 7, "0.5" -> 0.5, "true" -> true, "[1,2]" -> JSON, anything else a string.
Json parse_value(const std::string& text) {
  if (!text.empty() && (text.front() == '[' || text.front() == '{')) {
    return parse_json_document(text, "--set");
  }
  if (text == "true") return true;
  if (text == "false") return false;
  char* end = nullptr;
  const long long i = std::strtoll(text.c_str(), &end, 10);
  if (end && *end == '\0' && !text.empty()) return static_cast<std::int64_t>(i);
  const double d = std::strtod(text.c_str(), &end);
  if (end && *end == '\0' && !text.empty()) return d;
  return text;
}

std::pair<std::string, std::string> split_assignment(const std::string& text, const char* option) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ContractError(fmt::format("{} \"{}\": expected AXIS=VALUE", option, text));
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

// "127:6001" or "127:6001:2" (inclusive), or "1,2,4,8" (values as --set reads them).
std::vector<Json> parse_values(const std::string& spec) {
  std::vector<Json> out;
  if (spec.find(':') != std::string::npos) {
    std::vector<long long> parts;
    std::stringstream in(spec);
    std::string part;
    while (std::getline(in, part, ':')) {
      const Json v = parse_value(part);
      if (!v.is_number_integer())
        throw ContractError(fmt::format("--vary: \"{}\" is not FIRST:LAST[:STEP]", spec));
      parts.push_back(v.get<long long>());
    }
    if (parts.size() < 2 || parts.size() > 3 || parts[1] < parts[0] ||
        (parts.size() == 3 && parts[2] < 1)) {
      throw ContractError(
          fmt::format("--vary: \"{}\" is not FIRST:LAST[:STEP] with FIRST <= LAST", spec));
    }
    const long long step = parts.size() == 3 ? parts[2] : 1;
    if ((parts[1] - parts[0]) / step >= 1'000'000)
      throw ContractError("--vary: more than a million values");
    for (long long v = parts[0]; v <= parts[1]; v += step)
      out.emplace_back(static_cast<std::int64_t>(v));
    return out;
  }
  std::stringstream in(spec);
  std::string part;
  while (std::getline(in, part, ',')) out.push_back(parse_value(part));
  if (out.empty()) throw ContractError("--vary: no values");
  return out;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

int sweep(const SweepOptions& o, const std::vector<std::string>& argv) {
  const auto t0 = std::chrono::steady_clock::now();
  const OpRegistry registry = OpRegistry::builtin();
  const Op* op = registry.find(o.op);
  if (!op) {
    std::string names;
    for (const auto& n : registry.names()) names += (names.empty() ? "" : ", ") + n;
    throw ContractError(fmt::format("unknown op \"{}\"; accepted: {}", o.op, names));
  }
  DispatchSweep s;
  s.op = op;
  s.impl = o.impl.empty() ? op->implementations().at(0).name : o.impl;
  for (const auto& assignment : o.set) {
    const auto [axis, value] = split_assignment(assignment, "--set");
    s.fixed.set(axis, parse_value(value));
  }
  const auto [axis, spec] = split_assignment(o.vary, "--vary");
  s.axis = axis;
  s.values = parse_values(spec);
  s.variants = split_list(o.layouts);
  if (s.variants.empty()) throw ContractError("--layouts: name at least one layout");
  s.batch = o.batch;
  s.seed = o.seed;
  if (s.batch < 1) throw ContractError("--batch must be at least 1");

  const at::Device device = choose_device(o.device);
  CaptureChoice capture = start_capture(o.capture, device);
  fmt::print(stderr,
             "samebits: sweeping {} over {} = {} values x {} layouts on {} (kernel capture {})\n",
             op->name(), s.axis, s.values.size(), s.variants.size(),
             device.is_cuda() ? "cuda" : "cpu", capture.state);
  const auto t_run = std::chrono::steady_clock::now();
  const DispatchSweepResult result = run_dispatch_sweep(s, device, capture.capture.get());
  const double run_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_run).count();
  const DispatchMap map =
      classify_dispatch(result.observations, op->name(), s.impl, s.axis, o.grid);

  Report report;
  report.created = utc_timestamp();
  report.tool = tool_block();
  report.command = argv;
  report.settings = Json{{"device", device.is_cuda() ? "cuda" : "cpu"},
                         {"seed", o.seed},
                         {"kernel_capture", capture.state},
                         {"sweep_seconds", run_s}};
  report.environment = environment_block(device);
  report.dispatch = dispatch_to_json(map);
  report.dispatch["skipped"] = result.skipped;
  report.summary.exit_code = kExitAsExpected;
  report.summary.duration_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  print_dispatch_table(stdout, map);
  for (std::size_t i = 0; i < result.skipped.size() && i < 5; ++i)
    fmt::print("skipped: {}\n", result.skipped[i]);
  if (result.skipped.size() > 5)
    fmt::print("skipped: {} more (in the report)\n", result.skipped.size() - 5);
  fmt::print("{} observations in {:.2f} s ({:.1f} s in all)\n", result.observations.size(), run_s,
             report.summary.duration_s);
  if (!write_report_file(report, o.report)) return kExitInfrastructure;
  return kExitAsExpected;
}

}  // namespace

std::shared_ptr<int> setup_sweep_command(CLI::App& app, int argc, char** argv) {
  auto o = std::make_shared<SweepOptions>();
  auto code = std::make_shared<int>(-1);
  auto* cmd = app.add_subcommand(
      "sweep",
      "Map where an op's CUDA kernel and result bits change along one axis and across layouts");
  cmd->add_option("op", o->op, "the op (samebits list shows them)")->required();
  cmd->add_option("--impl", o->impl, "implementation (default: the op's first)");
  cmd->add_option("--set", o->set,
                  "AXIS=VALUE held fixed (repeatable); the op's defaults fill the rest");
  cmd->add_option("--vary", o->vary, "AXIS=FIRST:LAST[:STEP] or AXIS=V1,V2,...; AXIS may be batch")
      ->required();
  cmd->add_option("--layouts", o->layouts,
                  "comma-separated layouts, the first the reference: contiguous, strided:<gap>, "
                  "offset:<elements>, padded:<multiple> (default contiguous)");
  cmd->add_option("--batch", o->batch, "items per call (default 1)");
  cmd->add_option("--device", o->device, "auto, cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_option("--seed", o->seed, "seed of the inputs (default 0)");
  cmd->add_option("--report", o->report, "where to write the JSON report");
  cmd->add_option("--capture", o->capture, "kernel capture: auto, on, off")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  cmd->add_flag("--signature-grid", o->grid, "count grid sizes as part of a kernel signature");
  std::vector<std::string> args(argv, argv + argc);
  cmd->callback([o, code, args] { *code = sweep(*o, args); });
  return code;
}

}  // namespace samebits
