// `samebits validate CONTRACT...`: parses and checks contracts against the op registry without
// running anything; every error names the file, the JSON path and the accepted values.
#include <fmt/format.h>

#include "cli/command_ops.h"
#include "cli/commands.h"
#include "contracts/contract_error.h"
#include "harness/contract_loading.h"
#include "harness/plan.h"
#include "reports/outcome.h"

namespace samebits {
namespace {

int validate(const std::vector<std::string>& paths) {
  const OpRegistry registry = command_ops();
  const auto contracts = load_contracts(paths);
  int failures = 0;
  for (const auto& c : contracts) {
    try {
      validate_contract(*c, registry);
      std::vector<std::unique_ptr<Contract>> one;
      one.push_back(std::make_unique<Contract>(*c));
      fmt::print("ok: {} ({} checks; {} cases on cpu, {} on cuda)\n", c->source, c->checks.size(),
                 plan_cases(one, registry, "cpu", 0).size(),
                 plan_cases(one, registry, "cuda", 0).size());
    } catch (const ContractError& e) {
      fmt::print(stderr, "{}\n", e.what());
      ++failures;
    }
  }
  return failures == 0 ? kExitAsExpected : kExitUsage;
}

}  // namespace

std::shared_ptr<int> setup_validate_command(CLI::App& app) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto code = std::make_shared<int>(-1);
  auto* cmd = app.add_subcommand("validate", "Check contract files without running them");
  cmd->add_option("contracts", *paths, "contract files or folders")->required();
  cmd->callback([paths, code] { *code = validate(*paths); });
  return code;
}

}  // namespace samebits
