// samebits: do I get the same bits for the same item, whatever the batch around it, the padding,
// the stride and the chunking? Entry point; maps failures onto the documented exit codes.
#include <fmt/format.h>

#include "cli/commands.h"
#include "contracts/contract_error.h"
#include "harness/device_choice.h"
#include "reports/outcome.h"

static_assert(
    FMT_VERSION == SAMEBITS_EXPECTED_FMT_VERSION,
    "fmt headers differ from the fmt library linked (LibTorch's bundled fmt shadowed it?)");

int main(int argc, char** argv) {
  CLI::App app{"samebits: numerical-reproducibility contracts for GPU kernels"};
  app.require_subcommand(1);
  auto run_code = samebits::setup_run_command(app, argc, argv);
  auto list_code = samebits::setup_list_command(app);
  auto validate_code = samebits::setup_validate_command(app);
  auto sweep_code = samebits::setup_sweep_command(app, argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : samebits::kExitUsage;
  } catch (const samebits::ContractError& e) {
    fmt::print(stderr, "samebits: {}\n", e.what());
    return samebits::kExitUsage;
  } catch (const samebits::InfrastructureError& e) {
    fmt::print(stderr, "samebits: {}\n", e.what());
    return samebits::kExitInfrastructure;
  } catch (const std::exception& e) {
    fmt::print(stderr, "samebits: internal error: {}\n", e.what());
    return samebits::kExitInfrastructure;
  }
  for (const auto& code : {run_code, list_code, validate_code, sweep_code}) {
    if (*code >= 0) return *code;
  }
  return samebits::kExitUsage;
}
