// The whole run from its shares' reports: each records the run's plan (its size and digest) and
// each case its position in it, so the merge orders and counts without planning again.
#include "cli/merge_shares.h"

#include <fmt/format.h>

#include "cli/report_output.h"
#include "reports/model/outcome.h"
#include "reports/model/report_merge.h"
#include "reports/model/report_reader.h"
#include "reports/render/report_writer.h"

namespace samebits {

int merge_shares(const std::vector<std::string>& inputs, const std::string& out,
                 const std::vector<std::string>& argv, const RenderTargets& targets) {
  std::vector<ReportPart> parts;
  for (const auto& path : inputs) parts.push_back({path, read_report_file(path)});
  Report merged = merge_reports(parts);
  merged.command = argv;
  merged.created = parts.front().report.created;
  check_report_target(out);
  const auto write_error = write_report_file(merged, out);
  ConsoleStyle style;
  style.report_path = out;
  ConsoleSummaryWriter(stdout, style).write(merged);
  ConsoleRecapWriter(stdout, style).write(merged);
  const std::int64_t whole = merged.plan->cases;  // merge_reports refuses parts without a plan
  const std::int64_t missing = whole - merged.summary.cases;
  if (missing > 0) {
    fmt::print(
        "{} of the run's {} cases are in none of these reports (a share missing?): their "
        "checks are judged as subsets\n",
        missing, whole);
  }
  print_report_outcome(out, write_error);
  if (write_error) return kExitInfrastructure;
  RenderTargets with_path = targets;
  with_path.report_path = out;
  render_report(merged, with_path);
  return merged.summary.exit_code;
}

}  // namespace samebits
