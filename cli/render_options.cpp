// `--html`, `--markdown` and `--junit` for any command that has a report: the options, and one
// call that writes the renderings asked for through their ReportWriters.
#include "cli/render_options.h"

#include <memory>
#include <vector>

#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"

namespace samebits {

void add_render_options(CLI::App& cmd, RenderTargets& targets) {
  cmd.add_option("--html", targets.html,
                 "also write a self-contained HTML report (platform, outcomes, heatmaps, the "
                 "violated cases with their rerun commands) to FILE")
      ->type_name("FILE");
  cmd.add_option("--markdown", targets.markdown,
                 "also write a short Markdown summary (a PR comment, $GITHUB_STEP_SUMMARY) to FILE")
      ->type_name("FILE");
  cmd.add_option("--junit", targets.junit,
                 "also write JUnit XML (one test case per check, surprises as failures) to FILE")
      ->type_name("FILE");
}

void render_report(const Report& report, const RenderTargets& targets) {
  const std::string json =
      targets.report_path.empty() ? std::string("samebits-report.json") : targets.report_path;
  std::vector<std::unique_ptr<ReportWriter>> writers;
  if (!targets.html.empty())
    writers.push_back(std::make_unique<HtmlReportWriter>(targets.html, json));
  if (!targets.markdown.empty()) {
    writers.push_back(std::make_unique<MarkdownReportWriter>(targets.markdown));
  }
  if (!targets.junit.empty())
    writers.push_back(std::make_unique<JunitReportWriter>(targets.junit, json));
  for (const auto& w : writers) w->write(report);
}

}  // namespace samebits
