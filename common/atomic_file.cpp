// Writes a whole file or nothing: the bytes go to a temporary file beside the target, are flushed
// to disk, then renamed over it; a .gz name gets them gzip-compressed on the way.
#include "common/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "common/end_signals.h"

#ifdef SAMEBITS_HAVE_ZLIB
#include <zlib.h>
#endif

namespace samebits {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path, int err) {
  throw std::runtime_error(fmt::format("{} {}: {}", what, path, std::strerror(err)));
}

// SIGINT, SIGTERM and SIGHUP wait while a file is written: they are only noted, and once the
// earlier handlers are back the noted one is raised again. An interrupted run so leaves the old
// file or the new one, never a temporary file beside them.
class DeferredSignals {
 public:
  DeferredSignals() {
    pending_ = 0;  // before the handlers, so no signal noted by them is lost
    handlers_.emplace([](int sig) { pending_ = sig; }, 0);
  }
  ~DeferredSignals() {
    handlers_.reset();
    if (pending_ != 0) ::raise(pending_);
  }
  DeferredSignals(const DeferredSignals&) = delete;
  DeferredSignals& operator=(const DeferredSignals&) = delete;

 private:
  static inline volatile std::sig_atomic_t pending_ = 0;
  std::optional<EndSignalHandlers> handlers_;
};

bool gzip_name(const std::string& path) {
  return path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
}

#ifdef SAMEBITS_HAVE_ZLIB
// The content as one gzip member (zlib's default level: a sweep's report of 11,750 cases takes a
// fraction of a second).
std::string gzip(const std::string& content, const std::string& path) {
  z_stream z{};
  // 15 + 16: a 32 KiB window with a gzip header and trailer rather than zlib's.
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error(fmt::format("cannot compress {}: zlib did not start", path));
  }
  std::string out;
  char buffer[1 << 16];
  std::size_t offset = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    const std::size_t chunk = std::min<std::size_t>(content.size() - offset, 1u << 30);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(content.data() + offset));
    z.avail_in = static_cast<uInt>(chunk);
    const bool last = offset + chunk == content.size();
    do {
      z.next_out = reinterpret_cast<Bytef*>(buffer);
      z.avail_out = sizeof buffer;
      rc = deflate(&z, last ? Z_FINISH : Z_NO_FLUSH);
      if (rc == Z_STREAM_ERROR) {
        deflateEnd(&z);
        throw std::runtime_error(fmt::format("cannot compress {}: zlib failed", path));
      }
      out.append(buffer, sizeof buffer - z.avail_out);
    } while (z.avail_out == 0);
    offset += chunk;
  }
  deflateEnd(&z);
  return out;
}
#endif

}  // namespace

bool writes_gzip() {
#ifdef SAMEBITS_HAVE_ZLIB
  return true;
#else
  return false;
#endif
}

void write_file_atomically(const std::string& path, const std::string& text) {
#ifdef SAMEBITS_HAVE_ZLIB
  const std::string compressed = gzip_name(path) ? gzip(text, path) : std::string();
  const std::string& content = gzip_name(path) ? compressed : text;
#else
  const std::string& content = text;
#endif
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
