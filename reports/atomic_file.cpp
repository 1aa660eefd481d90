// Writes a whole file or nothing: the bytes go to a temporary file beside the target, are flushed
// to disk, then renamed over it. An interrupted or failed write leaves the old file untouched.
#include "reports/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace samebits {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path, int err) {
  throw std::runtime_error(fmt::format("{} {}: {}", what, path, std::strerror(err)));
}

// SIGINT, SIGTERM and SIGHUP wait while a file is written: the handlers installed here (for the
// whole process, so whichever thread the signal reaches) only note it, and the destructor puts the
// earlier handlers back and raises the signal again. An interrupted run so leaves the old file or
// the new one, never a temporary file beside them.
class DeferredSignals {
 public:
  DeferredSignals() {
    pending_ = 0;
    struct sigaction note = {};
    note.sa_handler = [](int sig) { pending_ = sig; };
    sigemptyset(&note.sa_mask);
    for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &note, &old_[i]);
  }
  ~DeferredSignals() {
    for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &old_[i], nullptr);
    if (pending_ != 0) ::raise(pending_);
  }
  DeferredSignals(const DeferredSignals&) = delete;
  DeferredSignals& operator=(const DeferredSignals&) = delete;

 private:
  static constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
  static inline volatile std::sig_atomic_t pending_ = 0;
  std::array<struct sigaction, 3> old_{};
};

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  const DeferredSignals deferred;
  namespace fs = std::filesystem;
  const fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) fail("cannot create the folder for", path, ec.value());
  }
  // Only a regular file is replaced: renaming over a device node (/dev/full, run as root) or a
  // FIFO would destroy it; a folder cannot be replaced.
  const fs::file_status status = fs::status(target, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    throw std::runtime_error(
        fmt::format("{}: exists and is not a regular file; not replaced", path));
  }
  const std::string temp = fmt::format("{}.tmp.{}", path, ::getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create", temp, errno);
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      fail("cannot write", temp, err);
    }
    written += static_cast<std::size_t>(n);
  }
  const int sync_rc = ::fsync(fd);
  const int sync_errno = errno;
  const int close_rc = ::close(fd);
  if (sync_rc != 0 || close_rc != 0) {
    const int err = sync_rc != 0 ? sync_errno : errno;
    ::unlink(temp.c_str());
    fail("cannot flush", temp, err);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    fail("cannot move the new report over", path, err);
  }
  // Make the rename itself durable: sync the folder that now names the new file.
  const std::string folder = target.has_parent_path() ? target.parent_path().string() : ".";
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace samebits
