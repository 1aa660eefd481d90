// The reviewer's rendering of a report: one self-contained HTML file (inline CSS and SVG, no
// scripts, fonts or network), with the platform, the outcomes, heatmaps and a case drill-down.
#pragma once

#include <string>

#include "reports/render/report_writer.h"

namespace samebits {

// Renders a report to an HTML string (what the writer writes; tests read it directly).
// `report_path` is the JSON report the rerun commands name.
std::string render_html(const Report& report, const std::string& report_path);

// Writes render_html(report) to `path` atomically.
class HtmlReportWriter final : public ReportWriter {
 public:
  explicit HtmlReportWriter(std::string path, std::string report_path = "samebits-report.json")
      : path_(std::move(path)), report_path_(std::move(report_path)) {}

 private:
  void do_write(const Report& report) override;
  std::string path_;
  std::string report_path_;
};

}  // namespace samebits
