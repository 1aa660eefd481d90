// `--html`, `--markdown` and `--junit`: the renderings a command writes besides its JSON report
// (samebits run, samebits report render), declared once so every command spells them the same.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/report_output.h"
#include "reports/model/report.h"

namespace samebits {

struct RenderTargets {
  std::string html, markdown, junit;  // files to write; empty: not asked for
  std::string report_path;            // the JSON report rerun commands name (empty: the default)
};

// For options naming a file: an empty value ('') is refused as a usage error (exit 2), not taken
// as "not asked for" nor found unwritable after the run.
inline CLI::Validator file_path_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.empty() ? std::string("an empty path; give the path of a file") : "";
      },
      "");
}

// Adds the three options to `cmd`, bound to `targets`.
void add_render_options(CLI::App& cmd, RenderTargets& targets);

// Before any case runs: the renderings asked for, as output targets (cli/report_output.h) by
// their options, to be checked with the command's other outputs.
std::vector<OutputTarget> render_output_targets(const RenderTargets& targets);

// Writes each rendering asked for (atomically); throws std::runtime_error naming the option and
// the file that could not be written.
void render_report(const Report& report, const RenderTargets& targets);

}  // namespace samebits
