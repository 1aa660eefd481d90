// The samebits subcommands (run, list, validate, sweep, baseline, report), one file each, in
// CLI11's subcommand-per-file style: setup_* declares the options, and the command runs from the
// parsed options.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>

namespace samebits {

// Each setup returns a slot the command's exit code is written to when it runs.
std::shared_ptr<int> setup_run_command(CLI::App& app, int argc, char** argv);
std::shared_ptr<int> setup_list_command(CLI::App& app);
std::shared_ptr<int> setup_validate_command(CLI::App& app);
std::shared_ptr<int> setup_sweep_command(CLI::App& app, int argc, char** argv);
std::shared_ptr<int> setup_baseline_command(CLI::App& app);
std::shared_ptr<int> setup_report_command(CLI::App& app, int argc, char** argv);
std::shared_ptr<int> setup_show_command(CLI::App& app);
std::shared_ptr<int> setup_localize_command(CLI::App& app);

}  // namespace samebits
