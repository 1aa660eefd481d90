// Finds the contracts a command names: files, folders of *.json, or (when none are named) the
// default suite compiled into the binary.
#include "harness/contract_loading.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "contracts/contract_error.h"
#include "contracts/embedded_suite.h"

namespace samebits {

std::vector<std::unique_ptr<Contract>> load_contracts(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::unique_ptr<Contract>> out;
  if (paths.empty()) {
    for (const auto& file : embedded_contracts()) {
      out.push_back(std::make_unique<Contract>(parse_contract(file.text, "embedded:" + file.name)));
    }
    return out;
  }
  for (const auto& path : paths) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<std::string> files;
      for (const auto& entry : fs::directory_iterator(path)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_regular_file() && entry.path().extension() == ".json" &&
            name.find(".schema.") == std::string::npos) {
          files.push_back(entry.path().string());
        }
      }
      std::sort(files.begin(), files.end());
      if (files.empty())
        throw ContractError(fmt::format("{}: folder holds no *.json contracts", path));
      for (const auto& f : files) out.push_back(std::make_unique<Contract>(load_contract_file(f)));
    } else {
      out.push_back(std::make_unique<Contract>(load_contract_file(path)));
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (out[i]->name == out[j]->name) {
        throw ContractError(fmt::format("{}: contract name \"{}\" is already used by {}",
                                        out[i]->source, out[i]->name, out[j]->source));
      }
    }
  }
  return out;
}

}  // namespace samebits
