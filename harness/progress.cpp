// A one-line progress bar on a terminal (stderr), silent otherwise, so CI logs stay readable.
// It redraws at most a few times a second.
#include "harness/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace samebits {

bool stderr_is_terminal() {
  return ::isatty(STDERR_FILENO) == 1;
}

Progress::Progress(std::int64_t total, bool enabled) : total_(total), enabled_(enabled) {}

void Progress::step(const std::string& label, bool surprising) {
  ++done_;
  if (surprising) ++surprises_;
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (done_ == total_ || now - last_draw_ > std::chrono::milliseconds(100)) {
    last_draw_ = now;
    draw(label);
  }
}

void Progress::draw(const std::string& label) {
  constexpr int kWidth = 30;
  const int filled = total_ > 0 ? static_cast<int>(kWidth * done_ / total_) : kWidth;
  std::string bar(static_cast<std::size_t>(filled), '=');
  bar.resize(kWidth, ' ');
  std::string shown = label.size() > 60 ? "..." + label.substr(label.size() - 57) : label;
  fmt::print(stderr, "\r\033[K[{}] {}/{} unexpected {} {}", bar, done_, total_, surprises_, shown);
  std::fflush(stderr);
}

void Progress::finish() {
  if (enabled_) fmt::print(stderr, "\r\033[K");
}

}  // namespace samebits
