// `samebits run --isolate`: the run's cases in child processes, so a case that crashes (a signal,
// an illegal memory access) or hangs (--case-timeout) becomes that case's verdict, not the run's
// end.
//
// The design:
// - The parent re-executes its own binary (/proc/self/exe) with the user's arguments and the hidden
//   ones of cli/isolated_child.h. The child plans, runs, judges and reports exactly as a plain
//   `samebits run` does, so an isolated run's report is the plain one; the parent loads no contract
//   and never touches Torch's devices or CUDA, so no fault of a case can reach it.
// - The child journals every case as it ends (reports/model/case_journal.h) and tells the
//   parent through a pipe as each case starts and ends. A child that dies (a signal, an exit) with a case under
//   way, or that the parent kills when that case outlives --case-timeout, leaves one culprit: the
//   parent appends a fault line for it to the journal (crashed or timed_out, with the stderr tail
//   the child wrote since the case started) and starts a new child resuming the journal. That child
//   records the culprit from the fault line (with its expectation, which needs the contracts) and
//   runs the cases after it, in a fresh process: a fresh CUDA context.
// - A case whose error broke the CUDA context ends its child's run (recorded crashed, see
//   harness/runner.cpp); the child says so and the next one goes on after it.
// - Each child leads its own process group, killed whole (SIGTERM, then SIGKILL after a grace), and
//   dies with the parent (PR_SET_PDEATHSIG). SIGINT, SIGTERM and SIGHUP to the parent go on to the
//   child, which stops after the case under way and writes the partial report; a child whose case
//   is still under way a second later (a hang, with or without --case-timeout) is killed, the case
//   left unrun, and one more child writes the partial report from the journal.
#include "cli/isolated_run.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <set>

#include "cli/isolated_child.h"
#include "cli/stop_signals.h"
#include "harness/device_choice.h"
#include "reports/model/case_journal.h"
#include "reports/model/outcome.h"

namespace samebits {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kTailBytes = 2048;  // of a culprit's stderr, in its reason
constexpr auto kKillGrace = std::chrono::milliseconds(1000);  // from SIGTERM to SIGKILL
// After a stop signal, how long the case under way may take to end by itself before its process
// is ended (the case is left unrun, for --resume): a hanging case must not hold the stop.
constexpr auto kStopGrace = std::chrono::milliseconds(1000);
constexpr int kPollMs = 100;
// After a broken CUDA context the child has nothing left but to exit; one stuck in the
// driver's teardown is killed after this long.
constexpr auto kBrokenExitGrace = std::chrono::seconds(30);

std::string signal_text(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV (segmentation fault)";
    case SIGABRT: return "SIGABRT (abort)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGFPE: return "SIGFPE (arithmetic exception)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    default: return fmt::format("signal {}", sig);
  }
}

// "was killed by SIGSEGV (segmentation fault)", "exited with code 1".
std::string status_text(int status) {
  if (WIFSIGNALED(status)) return "was killed by " + signal_text(WTERMSIG(status));
  return fmt::format("exited with code {}", WEXITSTATUS(status));
}

// One child process: its pid (and process group), the read ends of its stderr and events pipes.
struct Child {
  pid_t pid = -1;
  int err = -1;
  int events = -1;
};

Child spawn(const std::vector<std::string>& argv, const std::vector<std::string>& extra) {
  int err[2], events[2];
  if (::pipe2(err, O_CLOEXEC) != 0 || ::pipe2(events, O_CLOEXEC) != 0) {
    throw InfrastructureError(
        fmt::format("--isolate: cannot make a pipe: {}", std::strerror(errno)));
  }
  std::vector<std::string> args = argv;
  args.push_back(kIsolatedChild);
  args.push_back(std::to_string(events[1]));
  for (const auto& e : extra) args.push_back(e);
  std::vector<char*> argvp;
  for (auto& a : args) argvp.push_back(a.data());
  argvp.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    throw InfrastructureError(fmt::format("--isolate: cannot fork: {}", std::strerror(errno)));
  }
  if (pid == 0) {  // only async-signal-safe calls until exec
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(err[1], STDERR_FILENO);
    ::fcntl(events[1], F_SETFD, 0);  // the one descriptor the child keeps besides 0, 1, 2
    ::execv("/proc/self/exe", argvp.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here: whichever runs first, the group exists before any kill
  ::close(err[1]);
  ::close(events[1]);
  return {pid, err[0], events[0]};
}

// What the parent saw of one child, until it ended.
struct Watch {
  std::string under_way;  // the case started and not finished, or ""
  Clock::time_point since;
  std::string tail;  // its stderr since under_way started, the last kTailBytes
  std::string events;
  std::string broken;  // the case that broke its CUDA context, or ""
  Clock::time_point broken_at;
  bool killed_for_timeout = false;
  bool killed_for_stop = false;  // a stop signal came and its case did not end within kStopGrace
  int status = 0;

  void on_event(const std::string& line) {
    const auto space = line.find(' ');
    const std::string what = line.substr(0, space);
    const std::string id = space == std::string::npos ? "" : line.substr(space + 1);
    if (what == "started") {
      under_way = id;
      since = Clock::now();
      tail.clear();
    } else if (what == "finished" && id == under_way) {
      under_way.clear();
    } else if (what == "broken") {
      broken = id;
      under_way.clear();
      broken_at = Clock::now();
    }
  }
  void on_stderr(const char* data, std::size_t n) {
    tail.append(data, n);
    if (tail.size() > 2 * kTailBytes) tail.erase(0, tail.size() - kTailBytes);
  }
  std::string stderr_tail() const {
    if (tail.empty()) return "(nothing)";
    const std::size_t from = tail.size() > kTailBytes ? tail.size() - kTailBytes : 0;
    return (from > 0 ? "..." : "") + tail.substr(from);
  }
};

// Reads what is there: stderr goes on to this process's stderr and into the tail, events are
// parsed by line. Returns false at end of file.
bool pump(int fd, bool is_stderr, Watch& w) {
  char buffer[4096];
  const ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  if (is_stderr) {
    std::size_t written = 0;
    while (written < static_cast<std::size_t>(n)) {
      const ssize_t m = ::write(STDERR_FILENO, buffer + written, n - written);
      if (m <= 0 && errno != EINTR) break;
      if (m > 0) written += static_cast<std::size_t>(m);
    }
    w.on_stderr(buffer, static_cast<std::size_t>(n));
    return true;
  }
  w.events.append(buffer, static_cast<std::size_t>(n));
  for (auto nl = w.events.find('\n'); nl != std::string::npos; nl = w.events.find('\n')) {
    w.on_event(w.events.substr(0, nl));
    w.events.erase(0, nl + 1);
  }
  return true;
}

// Follows a child to its end: forwards a stop signal once, kills its group when the case under way
// outlives the timeout or, after a stop signal, kStopGrace (SIGTERM, SIGKILL after a grace), and
// reaps it.
Watch follow(const Child& child, const std::optional<double>& timeout,
             const volatile std::sig_atomic_t* stop, bool& forwarded) {
  Watch w;
  std::optional<Clock::time_point> stop_sent;
  // Events before stderr: a case's "started" is written before anything it prints, so reading it
  // first in each round keeps the case's own words in its tail.
  pollfd fds[2] = {{child.events, POLLIN, 0}, {child.err, POLLIN, 0}};
  std::optional<Clock::time_point> terminated;
  bool reaped = false;
  while (!reaped || fds[0].fd >= 0 || fds[1].fd >= 0) {
    if (!reaped) {
      const auto now = Clock::now();
      if (*stop != 0 && !forwarded) {
        ::kill(-child.pid, *stop);
        forwarded = true;
        stop_sent = now;
      }
      if (stop_sent && !terminated && !w.under_way.empty() && now - *stop_sent > kStopGrace) {
        ::kill(-child.pid, SIGTERM);  // its second: the child's own handler is gone, it ends
        terminated = now;
        w.killed_for_stop = true;
      }
      if (timeout && !terminated && !w.under_way.empty() &&
          now - w.since > std::chrono::duration<double>(*timeout)) {
        ::kill(-child.pid, SIGTERM);
        terminated = now;
        w.killed_for_timeout = true;
      }
      if (!terminated && !w.broken.empty() && now - w.broken_at > kBrokenExitGrace) {
        ::kill(-child.pid, SIGTERM);
        terminated = now;
      }
      if (terminated && now - *terminated > kKillGrace) ::kill(-child.pid, SIGKILL);
    }
    // Once the child is reaped, only what its pipes still hold is read.
    if (::poll(fds, 2, reaped ? 0 : kPollMs) > 0) {
      for (int i = 0; i < 2; ++i) {
        if (fds[i].fd >= 0 && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
            !pump(fds[i].fd, /*is_stderr=*/i == 1, w)) {
          ::close(fds[i].fd);
          fds[i].fd = -1;
        }
      }
    } else if (reaped) {
      break;  // nothing more (a grandchild may hold a pipe open)
    }
    if (!reaped && ::waitpid(child.pid, &w.status, WNOHANG) == child.pid) reaped = true;
  }
  for (const auto& p : fds) {
    if (p.fd >= 0) ::close(p.fd);
  }
  ::kill(-child.pid, SIGKILL);  // anything it left in its group
  return w;
}

}  // namespace

int run_isolated(const std::vector<std::string>& argv, const IsolateOptions& options) {
  const StopSignals stop;
  bool forwarded = false;
  std::set<std::string> culprits;
  for (int n = 0;; ++n) {
    std::vector<std::string> extra = {kIsolatedRestart, std::to_string(n)};
    const Watch w = follow(spawn(argv, extra), options.case_timeout, stop.flag(), forwarded);
    const bool exited = WIFEXITED(w.status);
    std::optional<CaseFault> fault;
    // A case ended by a stop is not a fault of its own: it is left unrun, for --resume.
    if (!w.under_way.empty() && !w.killed_for_stop) {
      fault =
          CaseFault{w.under_way, w.killed_for_timeout ? Verdict::timed_out : Verdict::crashed, "",
                    std::chrono::duration<double, std::milli>(Clock::now() - w.since).count()};
      // The first line says what happened (summaries show it); the stderr tail follows.
      fault->reason =
          w.killed_for_timeout
              ? fmt::format(
                    "ran past --case-timeout {} s: its process was killed (SIGTERM, then "
                    "SIGKILL)\n--- its stderr since the case started ---\n{}",
                    *options.case_timeout, w.stderr_tail())
              : fmt::format(
                    "its process {} while the case ran\n--- its stderr since the case "
                    "started ---\n{}",
                    status_text(w.status), w.stderr_tail());
    }
    const std::string culprit = fault ? fault->id : w.broken;
    if (fault) {
      try {
        CaseJournal journal(options.journal, JournalHeader{}, /*append=*/true);
        journal.append(*fault);
        if (!journal.error().empty()) throw std::runtime_error(journal.error());
      } catch (const std::exception& e) {
        fmt::print(stderr,
                   "samebits: --isolate: case {} {}, and its fault cannot be journaled: {}\n",
                   fault->id, to_string(fault->verdict), e.what());
        return kExitInfrastructure;
      }
      fmt::print(stderr, "samebits: --isolate: case {} {}: {}{}\n", fault->id,
                 fault->verdict == Verdict::timed_out ? "timed out" : "crashed",
                 w.killed_for_timeout ? "its process was killed after --case-timeout"
                                      : "its process " + status_text(w.status),
                 *stop.flag() != 0 ? "" : "; a new process runs the cases after it");
    }
    if (w.killed_for_stop) {
      fmt::print(stderr,
                 "samebits: --isolate: stopped by {} while case {} ran: its process was ended "
                 "(the case is left for --resume)\n",
                 signal_text(*stop.flag()), w.under_way);
    }
    if (*stop.flag() != 0) {
      if (exited && !fault && !w.killed_for_stop) {
        return WEXITSTATUS(w.status);  // its partial report is written
      }
      // The child could not stop by itself: one more writes the partial report from the journal.
      extra = {kIsolatedRestart, std::to_string(n + 1), kIsolatedStop,
               std::to_string(static_cast<int>(*stop.flag()))};
      bool ignored = true;
      const Watch last = follow(spawn(argv, extra), std::nullopt, stop.flag(), ignored);
      return WIFEXITED(last.status) ? WEXITSTATUS(last.status) : kExitInfrastructure;
    }
    if (culprit.empty()) {
      if (exited) return WEXITSTATUS(w.status);  // the run ended: its report is written
      fmt::print(stderr,
                 "samebits: --isolate: a child process {} outside any case; the journal {} keeps "
                 "the cases that finished\n",
                 status_text(w.status), options.journal);
      return kExitInfrastructure;
    }
    if (!culprits.insert(culprit).second) {
      fmt::print(stderr, "samebits: --isolate: case {} ended a child process twice; giving up\n",
                 culprit);
      return kExitInfrastructure;
    }
  }
}

}  // namespace samebits
