// The CI rendering: JUnit XML, one <testcase> per check result (contract, check, implementation,
// device), valid against the junit-10.xsd schema that Jenkins' xunit plugin and CI systems read.
#pragma once

#include <string>

#include "reports/render/report_writer.h"

namespace samebits {

// The whole document. A testsuite per contract; gate-failing outcomes are <failure>, errored
// <error>, not run <skipped/>; everything else passes, findings and the like saying so in
// <system-out>. `report_path` is the JSON report the rerun commands name.
std::string render_junit(const Report& report, const std::string& report_path);

// Writes render_junit(report) to `path` atomically.
class JunitReportWriter final : public ReportWriter {
 public:
  explicit JunitReportWriter(std::string path, std::string report_path = "samebits-report.json")
      : path_(std::move(path)), report_path_(std::move(report_path)) {}

 private:
  void do_write(const Report& report) override;
  std::string path_;
  std::string report_path_;
};

}  // namespace samebits
