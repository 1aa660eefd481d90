// One interface for every rendering of a report (JSON file, terminal summary, a sweep's dispatch
// table; later Markdown, HTML, JUnit): callers say write(report), each writer decides how.
#pragma once

#include <cstdio>
#include <string>

#include "reports/report.h"

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

// The end-of-run table on a terminal: one row per check and implementation, surprises first.
class ConsoleSummaryWriter final : public ReportWriter {
 public:
  explicit ConsoleSummaryWriter(std::FILE* out) : out_(out) {}

 private:
  void do_write(const Report& report) override;
  std::FILE* out_;
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
