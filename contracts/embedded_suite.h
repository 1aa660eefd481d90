// The default suite, the platforms recorded for it and the extra suite, compiled into the binary
// so `samebits run` needs no source tree. The bytes are the files' own: their SHA-256 digests
// match the files.
#pragma once

#include <string>
#include <vector>

namespace samebits {

struct EmbeddedFile {
  std::string name;  // file name, e.g. "sum.json"
  std::string text;
};

const std::vector<EmbeddedFile>& embedded_contracts();
// The extra suite (contracts/extra/*.json): ATen ops by schema name, never part of the default.
const std::vector<EmbeddedFile>& embedded_extra_contracts();
// The recorded platforms' observations: every contracts/observed/*.json (see baseline.h).
const std::vector<EmbeddedFile>& embedded_observations();

}  // namespace samebits
