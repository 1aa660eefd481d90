// The short rendering for a pull request comment or a CI step summary (GitHub Markdown): one
// headline line, the unexpected outcomes, drifted cases and findings with rerun commands in
// <details>, cut to stay under GitHub's comment limit.
#pragma once

#include <cstddef>
#include <string>

#include "reports/render/report_writer.h"

namespace samebits {

// GitHub refuses a comment longer than this many characters; the text stays under it, saying how
// many rows and entries it left out.
inline constexpr std::size_t kMarkdownLimit = 65536;
// The rows of the table of findings that differ from the nearest recorded platform.
inline constexpr std::size_t kMarkdownRows = 20;

// The whole text; its first line is the headline (exit code, its meaning, the summary's counts).
// `report_path` is the JSON report the rerun commands name.
std::string render_markdown(const Report& report,
                            const std::string& report_path = "samebits-report.json");

// Escapes text for a Markdown table cell: | and the inline markup characters, HTML brackets,
// newlines as spaces.
std::string escape_markdown(const std::string& text);

// Writes render_markdown(report) to `path` atomically.
class MarkdownReportWriter final : public ReportWriter {
 public:
  MarkdownReportWriter(std::string path, std::string report_path)
      : path_(std::move(path)), report_path_(std::move(report_path)) {}

 private:
  void do_write(const Report& report) override;
  std::string path_, report_path_;
};

}  // namespace samebits
