// The child side of `samebits run --isolate`: the hidden options its parent adds to the command
// line, and the pipe through which the child tells the parent as each case starts and ends.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "harness/runner.h"

namespace samebits {

// Added by the parent after the user's arguments, always as separate words:
//   --isolated-child FD     the write end of the events pipe (this process is a child)
//   --isolated-restart N    the N-th child (N >= 1 resumes the run's own journal)
//   --isolated-stop SIGNAL  take the journal's cases and stop: the partial report of a stopped run
inline constexpr const char* kIsolatedChild = "--isolated-child";
inline constexpr const char* kIsolatedRestart = "--isolated-restart";
inline constexpr const char* kIsolatedStop = "--isolated-stop";

// The command line as the user gave it: without the parent's hidden options (for the report).
inline std::vector<std::string> without_isolation_options(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == kIsolatedChild || argv[i] == kIsolatedRestart || argv[i] == kIsolatedStop) {
      ++i;
      continue;
    }
    out.push_back(argv[i]);
  }
  return out;
}

// Lines on the events pipe: "started ID", "finished ID", "broken ID" (the CUDA context broke in
// ID: the run ended there, a fresh child goes on). A case id holds no newline (the contract name
// pattern and the axis labels keep it out).
class PipeEvents final : public CaseEvents {
 public:
  explicit PipeEvents(int fd) : fd_(fd) {}
  void started(const std::string& id) override { send("started " + id); }
  void finished(const std::string& id) override { send("finished " + id); }
  void context_broken(const std::string& id) override { send("broken " + id); }

 private:
  void send(const std::string& line) {
    const std::string text = line + "\n";
    std::size_t written = 0;
    while (fd_ >= 0 && written < text.size()) {
      const ssize_t n = ::write(fd_, text.data() + written, text.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return;  // the parent is gone: nothing to tell
      written += static_cast<std::size_t>(n);
    }
  }
  int fd_;
};

}  // namespace samebits
