// `--case-timeout SECONDS` (with --isolate): how long one case may run before its child process is
// killed and the case recorded as timed_out. A number in (0, 604800]: a week is already no gate.
#pragma once

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <string>

namespace samebits {

inline constexpr double kMaxCaseTimeout = 604800;  // seconds: a week

inline CLI::Validator case_timeout_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = text.empty() ? NAN : std::strtod(text.c_str(), &end);
        if (std::isnan(v) || end == nullptr || *end != '\0' || !(v > 0) || v > kMaxCaseTimeout) {
          return "takes seconds, a number above 0 and at most 604800 (a week), e.g. 300 or "
                 "0.5; got \"" +
                 text + "\"";
        }
        return {};
      },
      "SECONDS");
}

}  // namespace samebits
