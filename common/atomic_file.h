// Writes a whole file or nothing: the bytes go to a temporary file beside the target, are flushed
// to disk, then renamed over it. An interrupted or failed write leaves the old file untouched.
#pragma once

#include <string>

namespace samebits {

// Creates missing parent folders. A path ending in ".gz" gets the content gzip-compressed (readers
// know gzip by its magic bytes; a build without zlib writes it plain, which they read too).
// Throws std::runtime_error (naming the path and errno) on failure.
void write_file_atomically(const std::string& path, const std::string& content);

// True when this build writes .gz paths compressed (it has zlib).
bool writes_gzip();

}  // namespace samebits
