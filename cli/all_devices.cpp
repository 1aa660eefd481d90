// `samebits run --devices all`: one share of the run per visible GPU, each a child `samebits run
// --shard I/N` pinned to its GPU, side by side; then the shares merged into one report.
#include "cli/all_devices.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "cli/merge_shares.h"
#include "common/errors.h"
#include "harness/device_choice.h"
#include "reports/model/outcome.h"

extern char** environ;

namespace samebits {
namespace {

// The command line without the options each share sets itself, and the renderings, which are
// drawn once from the merged report.
std::vector<std::string> share_args(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    bool dropped = false;
    for (const char* opt : {"--devices", "--shard", "--device", "--report", "--baseline", "--html",
                            "--markdown", "--junit"}) {
      if (a == opt) {
        ++i;  // and its value
        dropped = true;
      } else if (a.rfind(std::string(opt) + "=", 0) == 0) {
        dropped = true;
      }
    }
    if (a == "--fail-on-drift") dropped = true;
    if (!dropped) out.push_back(a);
  }
  return out;
}

// The GPU the i-th share sees: the i-th entry of CUDA_VISIBLE_DEVICES when it is set, else i.
std::string visible_device(int i) {
  const char* set = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!set || !*set) return std::to_string(i);
  std::vector<std::string> ids;
  std::string current;
  for (const char* p = set;; ++p) {
    if (*p == ',' || *p == '\0') {
      ids.push_back(current);
      current.clear();
      if (*p == '\0') break;
    } else {
      current += *p;
    }
  }
  return i < static_cast<int>(ids.size()) ? ids[i] : std::to_string(i);
}

pid_t spawn_share(const std::vector<std::string>& args, const std::string& gpu,
                  const std::string& log) {
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21) != 0) env_strings.emplace_back(*e);
  }
  env_strings.push_back("CUDA_VISIBLE_DEVICES=" + gpu);
  std::vector<char*> envp, argvp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args_copy = args;
  for (auto& s : args_copy) argvp.push_back(s.data());
  argvp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argvp.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    throw InfrastructureError(
        fmt::format("--devices all: cannot start a share: {}", std::strerror(rc)));
  }
  return pid;
}

}  // namespace

int run_on_all_devices(const std::vector<std::string>& argv, const std::string& report,
                       const RenderTargets& targets) {
  const int n = cuda_device_count();
  if (n == 0) throw ContractError("--devices all: no CUDA GPU is visible here (a usage error, as --device cuda is)");
  const std::string dir = report + ".shares";
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    throw InfrastructureError(
        fmt::format("--devices all: cannot make {}: {}", dir, std::strerror(errno)));
  }
  const std::vector<std::string> base = share_args(argv);
  std::vector<pid_t> pids;
  std::vector<std::string> reports, logs;
  for (int i = 0; i < n; ++i) {
    std::vector<std::string> args = base;
    reports.push_back(fmt::format("{}/share-{}-of-{}.json", dir, i, n));
    logs.push_back(fmt::format("{}/share-{}-of-{}.log", dir, i, n));
    for (const auto& extra : {std::string("--device"), std::string("cuda"), std::string("--shard"),
                              fmt::format("{}/{}", i, n), std::string("--report"), reports[i]}) {
      args.push_back(extra);
    }
    ::unlink(reports[i].c_str());  // a share that fails must not leave an old report to merge
    pids.push_back(spawn_share(args, visible_device(i), logs[i]));
    fmt::print(stderr, "samebits: share {}/{} on GPU {} (log {})\n", i, n, visible_device(i),
               logs[i]);
  }
  bool missing = false;
  for (int i = 0; i < n; ++i) {
    int status = 0;
    while (waitpid(pids[i], &status, 0) < 0 && errno == EINTR) {
    }
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    const bool written = ::access(reports[i].c_str(), R_OK) == 0;
    fmt::print(stderr, "samebits: share {}/{} exit {}{}\n", i, n, code,
               written ? "" : fmt::format(": no report (see {})", logs[i]));
    missing = missing || !written;
  }
  if (missing) return kExitInfrastructure;
  std::vector<std::string> merge_argv = argv;
  return merge_shares(reports, report, merge_argv, targets);
}

}  // namespace samebits
