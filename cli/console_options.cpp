// `-q`, `-v` and `--color` for the commands that print a report to the terminal (run, show), and
// the one place that decides colour: --color, then NO_COLOR, then whether the stream is a terminal.
#include "cli/console_options.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace samebits {

void add_console_options(CLI::App& cmd, ConsoleOptions& options, bool quiet) {
  CLI::Option* verbose = cmd.add_flag(
      "-v,--verbose", options.verbose,
      "list every entry and case of the recap (default: the first few of each, with a count)");
  if (quiet) {
    cmd.add_flag("-q,--quiet", options.quiet,
                 "print only the summary line and the recap of what failed (no table of checks)")
        ->excludes(verbose);
  }
  cmd.add_option("--color", options.color,
                 "colour the output: never, auto (a terminal, unless NO_COLOR is set or TERM=dumb), "
                 "always")
      ->check(CLI::IsMember({"never", "auto", "always"}))
      ->capture_default_str();
}

bool use_color(const std::string& choice, std::FILE* stream) {
  if (choice == "always") return true;
  if (choice == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  const char* term = std::getenv("TERM");
  if (term && std::strcmp(term, "dumb") == 0) return false;
  return ::isatty(::fileno(stream)) == 1;
}

ConsoleStyle console_style(const ConsoleOptions& options, std::FILE* stream,
                           const std::string& report_path) {
  ConsoleStyle style;
  style.verbosity = options.quiet     ? Verbosity::quiet
                    : options.verbose ? Verbosity::verbose
                                      : Verbosity::normal;
  style.color = use_color(options.color, stream);
  style.report_path = report_path;
  return style;
}

}  // namespace samebits
