// Finds the contracts a command names: files, folders of *.json, reports (which carry the texts
// of the contracts they ran), or (when none are named) the default suite compiled into the binary.
#include "harness/contract_loading.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "common/digest.h"
#include "common/errors.h"
#include "common/file_text.h"
#include "common/json_document.h"
#include "contracts/embedded_suite.h"

namespace samebits {
namespace {

bool is_report(const Json& doc) {
  return doc.is_object() && doc.contains("schema") && doc["schema"] == "samebits.report";
}

// The contracts a report ran, under their own names, so their case ids and seeds are the same.
void load_from_report(const Json& report, const std::string& path,
                      std::vector<std::unique_ptr<Contract>>& out) {
  const Json& contracts = report.contains("contracts") ? report["contracts"] : Json::array();
  for (std::size_t i = 0; i < contracts.size(); ++i) {
    const Json& entry = contracts[i];
    const std::string where = fmt::format("{}: /contracts/{}", path, i);
    if (!entry.contains("text") || !entry["text"].is_string()) {
      throw ContractError(fmt::format(
          "{}: the report (schema_version {}) does not carry the contract's text; rerun from the "
          "contract files",
          where, report.value("schema_version", std::string("?"))));
    }
    const std::string text = entry["text"].get<std::string>();
    if (sha256_hex(text) != entry.value("sha256", std::string())) {
      throw ContractError(where + ": the contract text does not match its sha256");
    }
    auto contract = std::make_unique<Contract>(
        parse_contract(text, fmt::format("{}#{}", path, entry.value("source", std::string()))));
    contract->name = entry.value("name", contract->name);
    out.push_back(std::move(contract));
  }
  if (contracts.empty()) throw ContractError(path + ": the report holds no contracts");
}

// A contract may hold 16 MiB, a report 1 GiB (common/file_text.h): text past the first that
// never names a report's schema is refused before it is parsed.
[[noreturn]] void refuse_large_contract(const std::string& path, std::size_t bytes) {
  throw ContractError(fmt::format(
      "{}: {} bytes, more than the 16 MiB ({} bytes) a contract may hold (a report may hold 1 GiB)",
      path, bytes, kMaxContractBytes));
}

void load_file(const std::string& path, std::vector<std::unique_ptr<Contract>>& out) {
  const std::string text = read_file_text(path, "a contract or report");
  const bool large = text.size() > kMaxContractBytes;
  if (large && text.find("\"samebits.report\"") == std::string::npos) {
    refuse_large_contract(path, text.size());
  }
  const Json doc = parse_json_document(text, path);  // malformed: where, with line and column
  if (large && !is_report(doc)) refuse_large_contract(path, text.size());
  if (is_report(doc)) {
    load_from_report(doc, path, out);
  } else {
    out.push_back(std::make_unique<Contract>(parse_contract(text, path)));
  }
}

// "suite:NAME": the embedded suite of that name, its sources "embedded:<file>" (the default suite,
// as when no path is named) or "embedded:extra/<file>".
constexpr const char* kSuitePrefix = "suite:";
void load_suite(const std::string& path, std::vector<std::unique_ptr<Contract>>& out) {
  const std::string name = path.substr(std::string(kSuitePrefix).size());
  if (name != "default" && name != "extra") {
    throw ContractError(
        fmt::format("{}: unknown suite \"{}\"; accepted: suite:default, suite:extra", path, name));
  }
  const bool extra = name == "extra";
  for (const auto& file : extra ? embedded_extra_contracts() : embedded_contracts()) {
    out.push_back(std::make_unique<Contract>(
        parse_contract(file.text, (extra ? "embedded:extra/" : "embedded:") + file.name)));
  }
}

}  // namespace

std::vector<std::string> contract_files(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return {path};
  std::vector<std::string> files;
  fs::directory_iterator folder(path, ec);
  if (ec) throw ContractError(fmt::format("{}: cannot read the folder: {}", path, ec.message()));
  for (const auto& entry : folder) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && entry.path().extension() == ".json" &&
        name.find(".schema.") == std::string::npos) {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw ContractError(fmt::format("{}: folder holds no *.json contracts", path));
  return files;
}

void check_distinct_names(const std::vector<std::unique_ptr<Contract>>& contracts) {
  for (std::size_t i = 0; i < contracts.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (contracts[i]->name == contracts[j]->name) {
        throw ContractError(fmt::format("{}: contract name \"{}\" is already used by {}",
                                        contracts[i]->source, contracts[i]->name,
                                        contracts[j]->source));
      }
    }
  }
}

std::vector<std::unique_ptr<Contract>> load_contracts(const std::vector<std::string>& paths) {
  std::vector<std::unique_ptr<Contract>> out;
  if (paths.empty()) {
    for (const auto& file : embedded_contracts()) {
      out.push_back(std::make_unique<Contract>(parse_contract(file.text, "embedded:" + file.name)));
    }
    return out;
  }
  for (const auto& path : paths) {
    if (path.rfind(kSuitePrefix, 0) == 0) {
      load_suite(path, out);
      continue;
    }
    for (const auto& file : contract_files(path)) load_file(file, out);
  }
  check_distinct_names(out);
  return out;
}

}  // namespace samebits
