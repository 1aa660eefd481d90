// Reading a file whole, through zlib for gzip data (known by its magic bytes, not by its name):
// one place for contracts, reports, baselines and journals.
#include "common/file_text.h"

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/errors.h"

#ifdef SAMEBITS_HAVE_ZLIB
#include <zlib.h>
#endif

namespace samebits {

bool is_gzip_magic(const std::string& text) {
  return text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f &&
         static_cast<unsigned char>(text[1]) == 0x8b;
}

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
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ContractError(fmt::format("{}: cannot open {}", path, what));
  // gzip by its magic bytes, whatever the name: a report.json that is gzip data is unpacked, and a
  // .gz name over plain text is read as it is.
  char magic[2] = {0, 0};
  in.read(magic, 2);
  const bool gz = in.gcount() == 2 && is_gzip_magic(std::string(magic, 2));
  if (!gz) {
    in.clear();
    in.seekg(0);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
  }
  in.close();
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
  const int closed = gzclose(f);  // Z_BUF_ERROR: the data ended inside a gzip stream
  if (text.size() > max_bytes) {
    throw ContractError(fmt::format("{}: unpacks to more than the {} bytes accepted for {}", path,
                                    max_bytes, what));
  }
  if (failed) throw ContractError(fmt::format("{}: not a readable gzip file", path));
  if (closed != Z_OK) {
    throw ContractError(
        fmt::format("{}: gzip data cut short (the file ends inside its stream); {} "
                    "is incomplete",
                    path, what));
  }
  return text;
#else
  throw ContractError(
      fmt::format("{}: this samebits was built without zlib; gunzip {} first", path, what));
#endif
}

}  // namespace samebits
