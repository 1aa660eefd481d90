// `samebits report diff|merge|render`: what reviewers and CI do with reports already written: what
// changed between two, the whole run from its shares, and the HTML, Markdown and JUnit renderings.
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/merge_shares.h"
#include "cli/render_options.h"
#include "common/atomic_file.h"
#include "common/errors.h"
#include "reports/model/outcome.h"
#include "reports/model/report_reader.h"
#include "reports/model/run_comparison.h"
#include "reports/render/report_writer.h"

namespace samebits {
namespace {

struct ReportOptions {
  std::vector<std::string> inputs;
  std::string out;
  std::string json;
  bool fail_on_drift = false;
  std::size_t rows = 20;
  RenderTargets render;
};

// Exit 1 when a verdict changed (or, with --fail-on-drift, any case drifted), as for --baseline.
int diff(const ReportOptions& o) {
  const Report before = read_report_file(o.inputs.at(0));
  const Report after = read_report_file(o.inputs.at(1));
  const RunComparison c = compare_runs(baseline_of(before, o.inputs[0]), after, o.inputs[1]);
  fmt::print("{}", comparison_text(c, o.rows));
  if (!o.json.empty()) {
    write_file_atomically(o.json, Json(c).dump(2) + "\n");
    fmt::print("diff: {}\n", o.json);
  }
  return c.gates(o.fail_on_drift) ? kExitUnexpected : kExitAsExpected;
}

// The renderings of a report already written; the exit code is the report's own verdict, so a
// CI step can render and gate in one.
int render(const ReportOptions& o) {
  const std::string& path = o.inputs.at(0);
  if (o.render.html.empty() && o.render.markdown.empty() && o.render.junit.empty()) {
    throw ContractError("report render: name at least one of --html, --markdown, --junit");
  }
  const Report report = read_report_file(path);
  RenderTargets targets = o.render;
  targets.report_path = path;
  render_report(report, targets);
  for (const auto* f : {&targets.html, &targets.markdown, &targets.junit}) {
    if (!f->empty()) fmt::print("report render: {}\n", *f);
  }
  return report.summary.exit_code;
}

}  // namespace

std::shared_ptr<int> setup_report_command(CLI::App& app, int argc, char** argv) {
  auto o = std::make_shared<ReportOptions>();
  auto code = std::make_shared<int>(-1);
  auto* cmd = app.add_subcommand("report", "Compare, merge or render reports already written");
  cmd->require_subcommand(1);

  auto* d = cmd->add_subcommand(
      "diff",
      "Which check verdicts and which case digests changed from report A to report B "
      "(two GPUs, two torch versions, before and after a change); exit 1 if a verdict "
      "changed");
  d->add_option("before", o->inputs, "report A, then report B")->required()->expected(2);
  d->add_option("--json", o->json, "also write the comparison as JSON to this file");
  d->add_flag("--fail-on-drift", o->fail_on_drift, "exit 1 also when digests drifted");
  d->add_option("--rows", o->rows, "drifted cases to list on the terminal (default 20)");
  d->callback([o, code] { *code = diff(*o); });

  auto* m = cmd->add_subcommand(
      "merge", "Join the reports of a run's shares (--shard, --devices all) into one report");
  m->add_option("parts", o->inputs, "the shares' reports")->required();
  m->add_option("-o,--out", o->out, "where to write the merged report")->required();
  add_render_options(*m, o->render);
  std::vector<std::string> args(argv, argv + argc);
  m->callback([o, code, args] { *code = merge_shares(o->inputs, o->out, args, o->render); });

  auto* r =
      cmd->add_subcommand("render",
                          "Write the HTML, Markdown or JUnit rendering of a report; exits with the "
                          "report's own code (0 as expected, 1 unexpected)");
  r->add_option("report", o->inputs, "the JSON report (.json or .json.gz)")
      ->required()
      ->expected(1);
  add_render_options(*r, o->render);
  r->callback([o, code] { *code = render(*o); });
  return code;
}

}  // namespace samebits
