// Whole-file read and write for tests that set up contracts and inspect reports on disk.
// Header-only so suites that link no test library (cli, reports) can use it.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace samebits::test_support {

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

}  // namespace samebits::test_support
