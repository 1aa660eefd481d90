// The text of a file samebits reads (a contract, a report, a baseline), gunzipped when its name
// ends in .gz, so large reports and baselines can be kept compressed.
#pragma once

#include <string>

namespace samebits {

// Throws ContractError naming the file and `what` it was ("the report", "the baseline") when it
// cannot be opened or is not readable gzip; without zlib, a .gz file is refused with a hint.
std::string read_file_text(const std::string& path, const char* what);

}  // namespace samebits
