// A run's progress as users see it: on a terminal (a pseudo-terminal here) a bar redrawn with
// escape sequences, none of them with TERM=dumb; in a log, plain lines with the time left.
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "tests/cli/cli_fixture.h"

namespace samebits {
namespace {

class ProgressCliTest : public CliTest {
 protected:
  // `samebits run` of the tiny contract on a pseudo-terminal (its stdout and stderr) with TERM set
  // to `term`: everything it wrote there, and its exit code.
  Result on_terminal(const char* term) const {
    int master = -1;
    const pid_t child = ::forkpty(&master, nullptr, nullptr, nullptr);
    if (child == 0) {
      ::setenv("TERM", term, 1);
      if (!platform.empty()) ::setenv("SAMEBITS_PLATFORM_OVERRIDE", platform.c_str(), 1);
      ::execl(SAMEBITS_CLI, SAMEBITS_CLI, "run", contract.c_str(), "--device", "cpu", "--report",
              report.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    Result r;
    if (child < 0) return r;
    char buffer[4096];
    for (;;) {
      const ssize_t n = ::read(master, buffer, sizeof buffer);
      if (n > 0) {
        r.out.append(buffer, static_cast<std::size_t>(n));
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else {
        break;  // EIO: the child's side is closed
      }
    }
    ::close(master);
    int status = 0;
    ::waitpid(child, &status, 0);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
  }
};

TEST_F(ProgressCliTest, ADumbTerminalGetsNoEscapeSequences) {
  const Result dumb = on_terminal("dumb");
  EXPECT_EQ(dumb.exit_code, 0) << dumb.out;
  EXPECT_EQ(dumb.out.find('\033'), std::string::npos) << dumb.out;
  EXPECT_NE(dumb.out.find("samebits: 4 of 4 cases (100 %)"), std::string::npos) << dumb.out;
  // The control: a terminal that understands them gets the bar.
  const Result xterm = on_terminal("xterm");
  EXPECT_EQ(xterm.exit_code, 0) << xterm.out;
  EXPECT_NE(xterm.out.find("\r\033[K["), std::string::npos) << xterm.out;
}

// Not on a terminal (a CI log): a line at each tenth of the run (here each of its four cases)
// with what is done and the time left, and no bar.
TEST_F(ProgressCliTest, ALogGetsProgressLinesWithTheTimeLeft) {
  const Result r = samebits(run_args(contract));
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_EQ(r.err.find('\033'), std::string::npos) << r.err;
  std::vector<std::string> shown;
  for (const auto& line : lines(r.err)) {
    if (line.find(" cases (") != std::string::npos) shown.push_back(line);
  }
  ASSERT_EQ(shown.size(), 4u) << r.err;
  EXPECT_EQ(shown[0].rfind("samebits: 1 of 4 cases (25 %), 0 unexpected, ", 0), 0u) << shown[0];
  EXPECT_NE(shown[0].find(" so far, about "), std::string::npos) << shown[0];
  EXPECT_NE(shown[0].find(" left"), std::string::npos) << shown[0];
  EXPECT_EQ(shown[3].rfind("samebits: 4 of 4 cases (100 %), 0 unexpected, ", 0), 0u) << shown[3];
  EXPECT_EQ(shown[3].find(" left"), std::string::npos) << "nothing left: " << shown[3];
}

}  // namespace
}  // namespace samebits
