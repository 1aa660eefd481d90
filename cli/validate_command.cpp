// `samebits validate CONTRACT...`: parses and checks contracts against the op registry without
// running anything; every error names the file, the JSON path and the accepted values.
#include <fmt/format.h>

#include <map>

#include "cli/command_ops.h"
#include "cli/commands.h"
#include "common/errors.h"
#include "harness/contract_loading.h"
#include "harness/plan.h"
#include "reports/model/outcome.h"

namespace samebits {
namespace {

// One contract against the registry, with its case counts; throws ContractError.
void validate_one(const Contract& c, const OpRegistry& registry) {
  validate_contract(c, registry);
  std::vector<std::unique_ptr<Contract>> one;
  one.push_back(std::make_unique<Contract>(c));
  fmt::print("ok: {} ({} checks; {} cases on cpu, {} on cuda)\n", c.source, c.checks.size(),
             plan_cases(one, registry, "cpu", 0).size(),
             plan_cases(one, registry, "cuda", 0).size());
}

// Every file named (a folder: each of its contracts) is read and checked on its own, so one
// broken file does not hide the next: each error is printed, and any makes the exit code 2.
int validate(const std::vector<std::string>& paths) {
  const OpRegistry registry = command_ops();
  std::size_t files = 0, broken = 0;
  std::map<std::string, std::string> names;  // contract name -> the source that has it
  for (const auto& path : paths) {
    std::vector<std::string> listed;
    try {
      listed = contract_files(path);
    } catch (const ContractError& e) {  // a folder that cannot be read or holds none
      fmt::print(stderr, "{}\n", e.what());
      ++files;
      ++broken;
      continue;
    }
    for (const auto& file : listed) {
      ++files;
      bool ok = true;
      try {
        for (const auto& c : load_contracts({file})) {
          try {
            const auto [it, fresh] = names.emplace(c->name, c->source);
            if (!fresh) {
              throw ContractError(fmt::format("{}: contract name \"{}\" is already used by {}",
                                              c->source, c->name, it->second));
            }
            validate_one(*c, registry);
          } catch (const ContractError& e) {
            fmt::print(stderr, "{}\n", e.what());
            ok = false;
          }
        }
      } catch (const ContractError& e) {
        fmt::print(stderr, "{}\n", e.what());
        ok = false;
      }
      if (!ok) ++broken;
    }
  }
  if (broken == 0) return kExitAsExpected;
  fmt::print(stderr, "samebits validate: {} of {} contract file{} broken\n", broken, files,
             files == 1 ? " is" : "s are");
  return kExitUsage;
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
