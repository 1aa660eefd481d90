// Reading a file whole, through zlib for .gz names: one place for reports and baselines.
#include "contracts/file_text.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "contracts/contract_error.h"

#ifdef SAMEBITS_HAVE_ZLIB
#include <zlib.h>
#endif

namespace samebits {

std::string read_file_text(const std::string& path, const char* what) {
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
  while ((n = gzread(f, buffer, sizeof buffer)) > 0) text.append(buffer, n);
  const bool failed = n < 0;
  gzclose(f);
  if (failed) throw ContractError(fmt::format("{}: not a readable gzip file", path));
  return text;
#else
  throw ContractError(
      fmt::format("{}: this samebits was built without zlib; gunzip {} first", path, what));
#endif
}

}  // namespace samebits
