// Reading a file whole, through zlib for .gz names: one place for reports and baselines.
#include "contracts/file_text.h"

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "contracts/contract_error.h"

#ifdef SAMEBITS_HAVE_ZLIB
#include <zlib.h>
#endif

namespace samebits {

std::string read_file_text(const std::string& path, const char* what, std::size_t max_bytes) {
  // Only regular files: a folder, a FIFO or a device (/dev/zero) would block or never end.
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec) throw ContractError(fmt::format("{}: cannot open {}: {}", path, what, ec.message()));
  if (fs::is_directory(status)) {
    throw ContractError(fmt::format("{}: is a folder, not {} (a file is expected)", path, what));
  }
  if (!fs::is_regular_file(status)) {
    throw ContractError(fmt::format(
        "{}: not a regular file (a FIFO, device or socket); {} must be a file", path, what));
  }
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > max_bytes) {
    throw ContractError(fmt::format("{}: {} bytes, more than the {} bytes accepted for {}", path,
                                    size, max_bytes, what));
  }
  const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  if (!gz) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ContractError(fmt::format("{}: cannot open {}", path, what));
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
  }
#ifdef SAMEBITS_HAVE_ZLIB
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw ContractError(fmt::format("{}: cannot open {}", path, what));
  std::string text;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(f, buffer, sizeof buffer)) > 0 && text.size() <= max_bytes) {
    text.append(buffer, n);
  }
  const bool failed = n < 0;
  gzclose(f);
  if (failed) throw ContractError(fmt::format("{}: not a readable gzip file", path));
  if (text.size() > max_bytes) {
    throw ContractError(fmt::format("{}: unpacks to more than the {} bytes accepted for {}", path,
                                    max_bytes, what));
  }
  return text;
#else
  throw ContractError(
      fmt::format("{}: this samebits was built without zlib; gunzip {} first", path, what));
#endif
}

}  // namespace samebits
