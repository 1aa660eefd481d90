// `-q`, `-v` and `--color` for the commands that print a report to the terminal (run, show), and
// the one place that decides colour: --color, then NO_COLOR, then whether the stream is a terminal.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "reports/render/report_writer.h"

namespace samebits {

struct ConsoleOptions {
  bool quiet = false;
  bool verbose = false;
  std::string color = "auto";  // never, auto, always
};

// Adds -v/--verbose and --color to `cmd`, and -q/--quiet where `quiet` (excluding -v).
void add_console_options(CLI::App& cmd, ConsoleOptions& options, bool quiet = true);

// never: no; always: yes (over NO_COLOR, as an explicit flag should be); auto: `stream` is a
// terminal, NO_COLOR is unset or empty, and TERM is not "dumb".
bool use_color(const std::string& choice, std::FILE* stream);

// The style the options ask for on `stream`, naming `report_path` in rerun commands.
ConsoleStyle console_style(const ConsoleOptions& options, std::FILE* stream,
                           const std::string& report_path);

}  // namespace samebits
