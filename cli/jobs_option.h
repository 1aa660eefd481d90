// `--jobs`: how many cases a run works at once: "auto" (on CUDA half the cores, at most 8; on the
// CPU one, since ATen's own threads already use every core) or a whole number from 1 to 256.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace samebits {

// 0 for "auto", else the number the text gives (the validator has checked it).
inline int jobs_from_text(const std::string& text) { return text == "auto" ? 0 : std::stoi(text); }

inline CLI::Option* add_jobs_option(CLI::App& cmd, std::string& jobs) {
  return cmd
      .add_option("--jobs,-j", jobs,
                  "cases worked at once, each on its own thread (CUDA: and stream), recorded in "
                  "plan order with the same bits: auto (default: on CUDA half the cores, at most "
                  "8; on the CPU 1) or 1 to 256")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (text == "auto") return {};
            const bool digits = !text.empty() && text.size() <= 3 &&
                                text.find_first_not_of("0123456789") == std::string::npos;
            if (!digits || std::stoi(text) < 1 || std::stoi(text) > 256)
              return "--jobs takes auto or a whole number from 1 to 256, got \"" + text + "\"";
            return {};
          },
          "auto|1..256"));
}

}  // namespace samebits
