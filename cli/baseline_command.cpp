// `samebits baseline write REPORT... -o BASELINE`: records what one platform did (its fingerprint,
// every check's outcome, every case's digests, and from several runs the cases whose bits vary)
// so later runs can gate on it or notice drift. `baseline update` records a subset run over one.
#include <fmt/format.h>

#include <set>

#include "cli/commands.h"
#include "common/atomic_file.h"
#include "common/errors.h"
#include "reports/model/baseline.h"
#include "reports/model/outcome.h"
#include "reports/model/report_reader.h"
#include "reports/model/run_comparison.h"

namespace samebits {
namespace {

struct BaselineOptions {
  std::string from;  // update: the baseline to start from
  std::vector<std::string> reports;
  std::string out;
  std::string name;
  bool outcomes_only = false;
};

int write_file(const std::string& out, const Baseline& baseline) {
  try {
    write_file_atomically(out, baseline_file_text(baseline));
  } catch (const std::exception& e) {
    fmt::print(stderr, "samebits: the baseline was not written: {}\n", e.what());
    return kExitInfrastructure;
  }
  return kExitAsExpected;
}

// The checks another run saw the other way, now recorded as varying: never gating there.
void print_varying(const std::set<std::string>& checks) {
  if (checks.empty()) return;
  fmt::print(
      "{} checks held in one run and were violated in another: recorded as varying (their "
      "outcome is chance on this platform; reported, never gating):\n",
      checks.size());
  for (const auto& key : checks) fmt::print("  {}\n", key);
}

// The first report replaces what the baseline held for its checks and cases; more reports of the
// same run add the digests of its cases that vary, and the checks seen both ways, as for `write`.
int update_baseline(const BaselineOptions& o) {
  Baseline baseline = load_baseline_file(o.from);
  const std::size_t checks_before = baseline.checks.size(), cases_before = baseline.cases.size();
  const Report report = read_report_file(o.reports.front());
  const std::vector<std::string> changed = replace_from(baseline, report, o.reports.front());
  std::set<std::string> varied, varying;
  for (std::size_t i = 1; i < o.reports.size(); ++i) {
    AddedRun added = add_run(baseline, read_report_file(o.reports[i]), o.reports[i]);
    varied.insert(added.varied_cases.begin(), added.varied_cases.end());
    varying.insert(added.varying_checks.begin(), added.varying_checks.end());
  }
  for (const auto& path : o.reports) baseline.recorded["updated_from"].push_back(path);
  if (const int code = write_file(o.out, baseline); code != kExitAsExpected) return code;
  fmt::print(
      "baseline {} updated from {} report(s): {} cases with other bits or verdict, {} new, {} in "
      "all; {} checks ({} new): {}\n",
      baseline.name, o.reports.size(), changed.size(), baseline.cases.size() - cases_before,
      baseline.cases.size(), baseline.checks.size(), baseline.checks.size() - checks_before, o.out);
  for (const auto& id : changed) fmt::print("  {}\n", id);
  if (!varied.empty())
    fmt::print("{} of them gave other bits in another run (kept as also_seen)\n", varied.size());
  print_varying(varying);
  return kExitAsExpected;
}

int write_baseline(const BaselineOptions& o) {
  const Report report = read_report_file(o.reports.front());
  Baseline baseline = baseline_of(report, o.name);
  baseline.recorded =
      Json{{"report", o.reports.front()}, {"created", report.created}, {"tool", report.tool}};
  // More runs of the same platform: cases whose bits differ between runs keep every set seen.
  std::set<std::string> varied, varying;
  for (std::size_t i = 1; i < o.reports.size(); ++i) {
    AddedRun added = add_run(baseline, read_report_file(o.reports[i]), o.reports[i]);
    varied.insert(added.varied_cases.begin(), added.varied_cases.end());
    varying.insert(added.varying_checks.begin(), added.varying_checks.end());
    baseline.recorded["also_from"].push_back(o.reports[i]);
  }
  if (o.outcomes_only) baseline.cases.clear();
  if (const int code = write_file(o.out, baseline); code != kExitAsExpected) return code;
  fmt::print("baseline {} ({}; {} checks{}): {}\n", o.name, baseline.platform.describe(),
             baseline.checks.size(),
             o.outcomes_only ? "" : fmt::format(", {} cases", baseline.cases.size()), o.out);
  if (o.reports.size() > 1 && !o.outcomes_only) {
    fmt::print(
        "{} of the cases gave other bits in another of the {} runs (kept as also_seen: not "
        "reproducible from run to run on this platform){}\n",
        varied.size(), o.reports.size(), varied.empty() ? "" : ":");
    for (const auto& id : varied) fmt::print("  {}\n", id);
  }
  print_varying(varying);
  return kExitAsExpected;
}

}  // namespace

std::shared_ptr<int> setup_baseline_command(CLI::App& app) {
  auto o = std::make_shared<BaselineOptions>();
  auto code = std::make_shared<int>(-1);
  auto* cmd =
      app.add_subcommand("baseline", "Record what a platform did, from one or more of its reports");
  cmd->require_subcommand(1);
  auto* write = cmd->add_subcommand(
      "write",
      "Write the baseline of REPORT: its platform fingerprint, every check's outcome and "
      "(unless --outcomes-only) every case's output digests; more reports of the same "
      "platform add the digests of cases whose bits vary from run to run");
  write
      ->add_option("reports", o->reports,
                   "samebits reports (JSON) of one platform: the first is the baseline, the "
                   "others add what varied")
      ->required();
  write->add_option("-o,--out", o->out, "where to write the baseline")->required();
  write->add_option("--name", o->name, "the platform's name, e.g. h100 (default: the file's stem)");
  write->add_flag("--outcomes-only", o->outcomes_only,
                  "check outcomes only: an observation file to ship with contracts");
  write->callback([o, code] {
    BaselineOptions options = *o;
    if (options.name.empty()) {
      const auto slash = options.out.find_last_of('/');
      std::string stem = options.out.substr(slash == std::string::npos ? 0 : slash + 1);
      options.name = stem.substr(0, stem.rfind(".json"));
    }
    *code = write_baseline(options);
  });
  auto* update = cmd->add_subcommand(
      "update",
      "Record REPORT (a run of some of the baseline's checks and cases, e.g. with --filter after "
      "a kernel change) over BASELINE: its checks' outcomes and its cases' digests replace "
      "those recorded, everything else stays; more reports of the same run add the digests of "
      "cases whose bits vary");
  update->add_option("baseline", o->from, "the baseline to start from (.json or .json.gz)")
      ->required()
      ->check(CLI::ExistingFile);
  update->add_option("reports", o->reports, "samebits reports (JSON) of the baseline's platform")
      ->required();
  update->add_option("-o,--out", o->out, "where to write the updated baseline")->required();
  update->callback([o, code] { *code = update_baseline(*o); });
  return code;
}

}  // namespace samebits
