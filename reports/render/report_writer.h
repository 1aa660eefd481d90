// One interface for every rendering of a report (JSON file, terminal summary, a sweep's dispatch
// table; later Markdown, HTML, JUnit): callers say write(report), each writer decides how.
#pragma once

#include <cstdio>
#include <string>

#include "reports/model/report.h"

namespace samebits {

class ReportWriter {
 public:
  virtual ~ReportWriter() = default;
  ReportWriter() = default;
  ReportWriter(const ReportWriter&) = delete;
  ReportWriter& operator=(const ReportWriter&) = delete;

  void write(const Report& report) { do_write(report); }

 private:
  virtual void do_write(const Report& report) = 0;
};

// The JSON report, written atomically: a reader sees the old file or the whole new one, never a
// part.
class JsonReportWriter final : public ReportWriter {
 public:
  explicit JsonReportWriter(std::string path) : path_(std::move(path)) {}

 private:
  void do_write(const Report& report) override;
  std::string path_;
};

// How the terminal reads: quiet (the summary line and the recap), normal (the table of checks
// too), verbose (every entry and case of the recap); colour as ANSI escapes (cli/console_options
// decides it: --color, NO_COLOR, a terminal, TERM=dumb).
enum class Verbosity { quiet, normal, verbose };
struct ConsoleStyle {
  Verbosity verbosity = Verbosity::normal;
  bool color = false;
  std::string report_path = "samebits-report.json";  // the report rerun commands name
};

// The end-of-run table on a terminal: one row per check and implementation, surprises first,
// then the summary line, the cases that crashed and the findings note.
class ConsoleSummaryWriter final : public ReportWriter {
 public:
  explicit ConsoleSummaryWriter(std::FILE* out, ConsoleStyle style = {})
      : out_(out), style_(std::move(style)) {}

 private:
  void do_write(const Report& report) override;
  std::FILE* out_;
  ConsoleStyle style_;
};

// The recap that ends a run's output (reports/render/recap.h): every unexpected outcome, error,
// drifted case and violated finding with its cases and rerun commands; nothing if all went well.
class ConsoleRecapWriter final : public ReportWriter {
 public:
  explicit ConsoleRecapWriter(std::FILE* out, ConsoleStyle style = {})
      : out_(out), style_(std::move(style)) {}

 private:
  void do_write(const Report& report) override;
  std::FILE* out_;
  ConsoleStyle style_;
};

// A sweep's report on a terminal: the dispatch map's table and findings, the cases that did not
// run (the first few, with why), and one line of counts.
class DispatchTableWriter final : public ReportWriter {
 public:
  explicit DispatchTableWriter(std::FILE* out) : out_(out) {}

 private:
  void do_write(const Report& report) override;
  std::FILE* out_;
};

}  // namespace samebits
