// The signals that ask a run to end (SIGINT, SIGTERM, SIGHUP), handled by a given function while
// an instance lives: process-wide, so whichever thread they reach; the earlier handlers come back.
#pragma once

#include <array>
#include <csignal>

namespace samebits {

class EndSignalHandlers {
 public:
  EndSignalHandlers(void (*handler)(int), int flags) {
    struct sigaction with = {};
    with.sa_handler = handler;
    with.sa_flags = flags;
    sigemptyset(&with.sa_mask);
    for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &with, &old_[i]);
  }
  ~EndSignalHandlers() {
    for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &old_[i], nullptr);
  }
  EndSignalHandlers(const EndSignalHandlers&) = delete;
  EndSignalHandlers& operator=(const EndSignalHandlers&) = delete;

 private:
  static constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> old_{};
};

}  // namespace samebits
