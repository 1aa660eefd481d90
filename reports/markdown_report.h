// The short rendering for a pull request comment or a CI step summary (GitHub Markdown): one
// headline line, the unexpected outcomes in a table of at most kMarkdownRows, the findings count.
#pragma once

#include <cstddef>
#include <string>

#include "reports/report_writer.h"

namespace samebits {

inline constexpr std::size_t kMarkdownRows = 20;

// The whole text; its first line is the headline (exit code, its meaning, the summary's counts).
std::string render_markdown(const Report& report);

// Escapes text for a Markdown table cell: | and the inline markup characters, HTML brackets,
// newlines as spaces.
std::string escape_markdown(const std::string& text);

// Writes render_markdown(report) to `path` atomically.
class MarkdownReportWriter final : public ReportWriter {
 public:
  explicit MarkdownReportWriter(std::string path) : path_(std::move(path)) {}

 private:
  void do_write(const Report& report) override;
  std::string path_;
};

}  // namespace samebits
