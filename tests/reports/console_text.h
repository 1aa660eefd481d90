// The terminal summary a run prints (ConsoleSummaryWriter), captured as text for tests to search:
// written through a temporary FILE*, as a run writes it to stdout.
#pragma once

#include <cstdio>
#include <string>

#include "reports/model/report.h"
#include "reports/render/report_writer.h"

namespace samebits {

inline std::string console_summary_text(const Report& report) {
  std::FILE* out = std::tmpfile();
  if (!out) return "(no temporary file for the console summary)";
  ConsoleSummaryWriter(out).write(report);
  std::rewind(out);
  std::string text;
  char buf[512];
  while (std::fgets(buf, sizeof(buf), out)) text += buf;
  std::fclose(out);
  return text;
}

}  // namespace samebits
