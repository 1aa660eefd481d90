// The whole run from its shares' reports: plan the run again from the contracts the first share
// carries (its order and each check's size), merge, print the summary, write the report.
#include "cli/merge_shares.h"

#include <fmt/format.h>

#include "cli/command_ops.h"
#include "cli/report_output.h"
#include "harness/contract_loading.h"
#include "harness/op_registry.h"
#include "harness/plan.h"
#include "harness/selection.h"
#include "reports/outcome.h"
#include "reports/report_merge.h"
#include "reports/report_reader.h"
#include "reports/report_writer.h"

namespace samebits {
namespace {

// The whole run's plan, from the contracts the first share carries: every case id in order (after
// the share's --filter or --case) and each check's size.
void plan_of(const std::string& first, const Report& report, std::vector<std::string>& order,
             PlannedCounts& planned) {
  const auto contracts = load_contracts({first});
  const OpRegistry registry = command_ops();
  const Json& settings = report.settings;
  const std::string device = settings.value("device", std::string("cpu"));
  const std::uint64_t seed = std::stoull(settings.value("seed", std::string("0")));
  auto all = plan_cases(contracts, registry, device, seed);
  for (const auto& c : all)
    ++planned[planned_key(c.contract->name, c.check->name, c.impl, c.device)];
  CaseSelection selection;
  if (settings.contains("filter") && settings.at("filter").is_string()) {
    selection.filter = settings.at("filter").get<std::string>();
  }
  if (settings.contains("case") && settings.at("case").is_string()) {
    selection.case_id = settings.at("case").get<std::string>();
  }
  for (const auto& c : select_cases(std::move(all), selection)) order.push_back(c.id);
}

}  // namespace

int merge_shares(const std::vector<std::string>& inputs, const std::string& out,
                 const std::vector<std::string>& argv, const RenderTargets& targets) {
  std::vector<ReportPart> parts;
  for (const auto& path : inputs) parts.push_back({path, read_report_file(path)});
  std::vector<std::string> order;
  PlannedCounts planned;
  plan_of(inputs.front(), parts.front().report, order, planned);
  Report merged = merge_reports(parts, order, planned);
  merged.command = argv;
  merged.created = parts.front().report.created;
  check_report_target(out);
  const auto write_error = write_report_file(merged, out);
  ConsoleStyle style;
  style.report_path = out;
  ConsoleSummaryWriter(stdout, style).write(merged);
  ConsoleRecapWriter(stdout, style).write(merged);
  const auto missing = static_cast<std::int64_t>(order.size()) - merged.summary.cases;
  if (missing > 0) {
    fmt::print(
        "{} of the run's {} cases are in none of these reports (a share missing?): their "
        "checks are judged as subsets\n",
        missing, order.size());
  }
  print_report_outcome(out, write_error);
  if (write_error) return kExitInfrastructure;
  RenderTargets with_path = targets;
  with_path.report_path = out;
  render_report(merged, with_path);
  return merged.summary.exit_code;
}

}  // namespace samebits
