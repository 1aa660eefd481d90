// `--html`, `--markdown` and `--junit`: the renderings a command writes besides its JSON report
// (samebits run, samebits report render), declared once so every command spells them the same.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "reports/report.h"

namespace samebits {

struct RenderTargets {
  std::string html, markdown, junit;  // files to write; empty: not asked for
  std::string report_path;            // the JSON report rerun commands name (empty: the default)
};

// Adds the three options to `cmd`, bound to `targets`.
void add_render_options(CLI::App& cmd, RenderTargets& targets);

// Writes each rendering asked for (atomically); throws std::runtime_error naming a file that
// could not be written.
void render_report(const Report& report, const RenderTargets& targets);

}  // namespace samebits
