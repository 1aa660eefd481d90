// While a run executes, SIGINT, SIGTERM and SIGHUP ask it to stop after the case under way (the
// journal and a partial report keep what finished); a second signal ends the process at once.
#pragma once

#include <csignal>
#include <optional>

#include "common/end_signals.h"

namespace samebits {

class StopSignals {
 public:
  StopSignals() {
    stop_ = 0;  // before the handlers, so no signal noted by them is lost
    // SA_RESETHAND: the next signal takes the default action, ending the process.
    handlers_.emplace([](int sig) { stop_ = sig; }, SA_RESETHAND);
  }
  // The signal's number once one came, else 0.
  const volatile std::sig_atomic_t* flag() const { return &stop_; }

 private:
  static inline volatile std::sig_atomic_t stop_ = 0;
  std::optional<EndSignalHandlers> handlers_;
};

}  // namespace samebits
