// `--seed`: a decimal integer in [0, 2^64 - 1]. CLI11 reads "-1" into a uint64_t as 2^64 - 1 and
// clamps larger values silently; this validator refuses both, naming the accepted range.
#pragma once

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <string>

namespace samebits {

inline CLI::Validator seed_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digits = !text.empty() && text.size() <= 20 &&
                            text.find_first_not_of("0123456789") == std::string::npos;
        errno = 0;
        if (digits) std::strtoull(text.c_str(), nullptr, 10);
        if (!digits || errno == ERANGE) {
          return "--seed takes a decimal integer in [0, 18446744073709551615], got \"" + text +
                 "\"";
        }
        return {};
      },
      "UINT64");
}

}  // namespace samebits
