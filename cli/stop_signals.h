// While a run executes, SIGINT, SIGTERM and SIGHUP ask it to stop after the case under way (the
// journal and a partial report keep what finished); a second signal ends the process at once.
#pragma once

#include <array>
#include <csignal>

namespace samebits {

class StopSignals {
 public:
  StopSignals() {
    stop_ = 0;
    struct sigaction note = {};
    note.sa_handler = [](int sig) { stop_ = sig; };
    note.sa_flags = SA_RESETHAND;  // the next one takes the default action: the process ends
    sigemptyset(&note.sa_mask);
    for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &note, &old_[i]);
  }
  ~StopSignals() {
    for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &old_[i], nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  // The signal's number once one came, else 0.
  const volatile std::sig_atomic_t* flag() const { return &stop_; }

 private:
  static constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
  static inline volatile std::sig_atomic_t stop_ = 0;
  std::array<struct sigaction, 3> old_{};
};

}  // namespace samebits
