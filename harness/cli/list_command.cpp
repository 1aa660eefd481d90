// `samebits list`: the ops with their implementations (and whether each can run here), then the
// contracts with their checks and case counts per device.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cases/generators.h"
#include "cli/commands.h"
#include "harness/contract_loading.h"
#include "harness/device_choice.h"
#include "harness/plan.h"

namespace samebits {
namespace {

int list(const std::vector<std::string>& paths) {
  const OpRegistry registry = OpRegistry::builtin();
  const bool gpu = cuda_available();
  fmt::print("ops (this machine: {}):\n", gpu ? "CPU and CUDA" : "CPU only, no CUDA GPU visible");
  for (const auto& op : registry.ops()) {
    std::vector<std::string> checks;
    for (auto k : op->checks()) checks.push_back(to_string(k));
    fmt::print("  {}: {}\n    checks: {}\n", op->name(), op->description(),
               fmt::join(checks, ", "));
    for (const auto& impl : op->implementations()) {
      std::vector<std::string> devices;
      if (impl.cpu) devices.push_back("cpu");
      if (impl.cuda) devices.push_back("cuda");
      const bool here = impl.cpu || (impl.cuda && gpu);
      fmt::print("    {:<22} [{}] {}{}\n", impl.name, fmt::join(devices, ","), impl.description,
                 here ? "" : "  (cannot run here)");
    }
  }
  fmt::print("generators:\n");
  for (const auto& g : generator_catalog()) fmt::print("  {:<10} {}\n", g.name, g.reason);
  const auto contracts = load_contracts(paths);
  fmt::print("contracts{}:\n", paths.empty() ? " (embedded default suite)" : "");
  for (const auto& c : contracts) {
    validate_contract(*c, registry);
    fmt::print("  {} ({}, op {}): {}\n", c->name, c->source, c->op, c->description);
    for (const auto& check : c->checks) {
      std::vector<std::unique_ptr<Contract>> one;
      one.push_back(std::make_unique<Contract>(*c));
      one.back()->checks = {check};
      const auto cpu = plan_cases(one, registry, "cpu", 0).size();
      const auto cuda = plan_cases(one, registry, "cuda", 0).size();
      fmt::print("    {:<28} {:<20} {} cases on cpu, {} on cuda\n", check.name,
                 to_string(check.kind), cpu, cuda);
    }
  }
  return 0;
}

}  // namespace

std::shared_ptr<int> setup_list_command(CLI::App& app) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto code = std::make_shared<int>(-1);
  auto* cmd = app.add_subcommand("list", "List ops, implementations, generators and contracts");
  cmd->add_option("contracts", *paths, "contract files or folders (default: embedded suite)");
  cmd->callback([paths, code] { *code = list(*paths); });
  return code;
}

}  // namespace samebits
