// Writes the renderings of a report into a folder for the schema and browser tests:
// `render_fixture OUT [REPORT.json[.gz]]`. Without a report, the in-process fixture run, and the
// same run with hostile names (hostile.html, hostile.junit.xml): escaping bugs break those files.
#include <cstdio>
#include <exception>
#include <string>

#include "reports/model/report_reader.h"
#include "reports/render/html_report.h"
#include "reports/render/junit_report.h"
#include "reports/render/markdown_report.h"
#include "reports/render/report_writer.h"
#include "tests/reports/render_fixture.h"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: render_fixture OUT_DIR [REPORT.json[.gz]]\n");
    return 2;
  }
  try {
    const std::string out = argv[1];
    const samebits::Report report =
        argc == 3 ? samebits::read_report_file(argv[2]) : samebits::render_fixture_report();
    const std::string json = argc == 3 ? std::string(argv[2]) : out + "/report.json";
    if (argc == 2) samebits::JsonReportWriter(json).write(report);
    samebits::HtmlReportWriter(out + "/report.html", json).write(report);
    samebits::MarkdownReportWriter(out + "/report.md", json).write(report);
    samebits::JunitReportWriter(out + "/report.junit.xml", json).write(report);
    if (argc == 2) {
      const samebits::Report hostile = samebits::with_hostile_names(report);
      samebits::HtmlReportWriter(out + "/hostile.html", json).write(hostile);
      samebits::JunitReportWriter(out + "/hostile.junit.xml", json).write(hostile);
    }
    std::printf("%s/report.{html,md,junit.xml}\n", out.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "render_fixture: %s\n", e.what());
    return 1;
  }
  return 0;
}
