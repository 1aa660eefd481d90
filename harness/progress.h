// A run's progress on stderr: a one-line bar redrawn in place on a terminal, and elsewhere (CI
// logs, TERM=dumb, a redirected stdout) plain lines with the time left, every 10 % or 10 s.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace samebits {

enum class ProgressStyle {
  none,
  bar,    // redrawn in place with escape sequences: stdout and stderr are terminals, TERM not dumb
  lines,  // "samebits: 120 of 2205 cases (5 %), ..., about 25m10s left", no escape sequences
};

// The style for this process: bar when stdout and stderr are terminals and TERM is set and not
// "dumb", lines otherwise.
ProgressStyle progress_style();

class Progress {
 public:
  using Clock = std::chrono::steady_clock;
  // enabled: progress_style() on stderr; otherwise silent.
  Progress(std::int64_t total, bool enabled);
  // For tests: the style, where it goes and the clock.
  Progress(std::int64_t total, ProgressStyle style, std::FILE* out,
           std::function<Clock::time_point()> now);
  // A case that ran.
  void step(const std::string& label, bool surprising);
  // A case taken from a journal (--resume): counted, but not in the rate the time left comes from.
  void taken(const std::string& label);
  void finish();

 private:
  void advance(const std::string& label);
  void draw(const std::string& label);
  void line();
  std::int64_t total_;
  std::int64_t done_ = 0;
  std::int64_t ran_ = 0;  // of done_, the cases that ran (not taken)
  std::int64_t surprises_ = 0;
  ProgressStyle style_;
  std::FILE* out_;
  std::function<Clock::time_point()> now_;
  Clock::time_point start_;
  Clock::time_point last_draw_{};
  std::int64_t last_tenth_ = 0;
};

// True when stderr is a terminal.
bool stderr_is_terminal();

}  // namespace samebits
