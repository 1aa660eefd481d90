// The text of a file samebits reads (a contract, a report, a baseline), gunzipped when it is gzip
// data (by its magic bytes, whatever its name), so large reports and baselines can be compressed.
#pragma once

#include <cstddef>
#include <string>

namespace samebits {

// The most a report or baseline may hold (unpacked); a contract is far smaller.
inline constexpr std::size_t kMaxDocumentBytes = std::size_t{1} << 30;
inline constexpr std::size_t kMaxContractBytes = std::size_t{16} << 20;

// True when text starts with gzip's magic bytes (1f 8b).
bool is_gzip_magic(const std::string& text);

// Throws ContractError naming the file and `what` it was ("the report", "the baseline") when it
// cannot be opened, is not a regular file (a folder, FIFO or device), holds (or unpacks to) more
// than max_bytes, or is gzip data that cannot be read; without zlib, gzip data is refused with a
// hint.
std::string read_file_text(const std::string& path, const char* what,
                           std::size_t max_bytes = kMaxDocumentBytes);

}  // namespace samebits
