// Writes a whole file or nothing: the bytes go to a temporary file beside the target, are flushed
// to disk, then renamed over it. An interrupted or failed write leaves the old file untouched.
#pragma once

#include <string>

namespace samebits {

// Creates missing parent folders. Throws std::runtime_error (naming the path and errno) on failure.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace samebits
