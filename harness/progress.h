// A one-line progress bar on a terminal (stderr), silent otherwise, so CI logs stay readable.
// It redraws at most a few times a second.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace samebits {

class Progress {
 public:
  Progress(std::int64_t total, bool enabled);
  void step(const std::string& label, bool surprising);
  void finish();

 private:
  void draw(const std::string& label);
  std::int64_t total_;
  std::int64_t done_ = 0;
  std::int64_t surprises_ = 0;
  bool enabled_;
  std::chrono::steady_clock::time_point last_draw_{};
};

// True when stderr is a terminal.
bool stderr_is_terminal();

}  // namespace samebits
