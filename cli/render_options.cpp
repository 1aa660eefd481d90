// `--html`, `--markdown` and `--junit` for any command that has a report: the options, and one
// call that writes the renderings asked for through their ReportWriters.
#include "cli/render_options.h"

#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "reports/render/html_report.h"
#include "reports/render/junit_report.h"
#include "reports/render/markdown_report.h"

namespace samebits {

void add_render_options(CLI::App& cmd, RenderTargets& targets) {
  cmd.add_option("--html", targets.html,
                 "also write a self-contained HTML report (platform, outcomes, heatmaps, the "
                 "violated cases with their rerun commands) to FILE")
      ->check(file_path_validator())
      ->type_name("FILE");
  cmd.add_option("--markdown", targets.markdown,
                 "also write a short Markdown summary (a PR comment, $GITHUB_STEP_SUMMARY) to FILE")
      ->check(file_path_validator())
      ->type_name("FILE");
  cmd.add_option("--junit", targets.junit,
                 "also write JUnit XML (one test case per check, surprises as failures) to FILE")
      ->check(file_path_validator())
      ->type_name("FILE");
}

std::vector<OutputTarget> render_output_targets(const RenderTargets& targets) {
  std::vector<OutputTarget> out;
  if (!targets.html.empty()) out.push_back({"--html", targets.html});
  if (!targets.markdown.empty()) out.push_back({"--markdown", targets.markdown});
  if (!targets.junit.empty()) out.push_back({"--junit", targets.junit});
  return out;
}

void render_report(const Report& report, const RenderTargets& targets) {
  const std::string json =
      targets.report_path.empty() ? std::string("samebits-report.json") : targets.report_path;
  std::vector<std::pair<std::string, std::unique_ptr<ReportWriter>>> writers;
  if (!targets.html.empty())
    writers.emplace_back("--html", std::make_unique<HtmlReportWriter>(targets.html, json));
  if (!targets.markdown.empty()) {
    writers.emplace_back("--markdown", std::make_unique<MarkdownReportWriter>(targets.markdown, json));
  }
  if (!targets.junit.empty())
    writers.emplace_back("--junit", std::make_unique<JunitReportWriter>(targets.junit, json));
  for (const auto& [option, w] : writers) {
    try {
      w->write(report);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(option + " not written: " + e.what());
    }
  }
}

}  // namespace samebits
