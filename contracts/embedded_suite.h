// The default suite: every contracts/*.json compiled into the binary, so `samebits run` needs no
// source tree. The bytes are the files' own, so their SHA-256 digests match the files on disk.
#pragma once

#include <string>
#include <vector>

namespace samebits {

struct EmbeddedFile {
  std::string name;  // file name, e.g. "sum.json"
  std::string text;
};

const std::vector<EmbeddedFile>& embedded_contracts();

}  // namespace samebits
