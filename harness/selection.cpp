// Which planned cases a run keeps: all, those a --filter regex selects, or the one --case names.
// A filter matches at the start of the id or of one of its parts, so "softmax/" is not log_softmax.
#include "harness/selection.h"

#include <fmt/format.h>

#include <regex>

#include "contracts/contract_error.h"

namespace samebits {
namespace {

std::vector<CaseSpec> exactly(std::vector<CaseSpec> cases, const std::string& id) {
  for (auto& c : cases) {
    if (c.id == id) return {std::move(c)};
  }
  std::string hint;
  const std::string prefix = id.substr(0, id.rfind('/') + 1);
  int shown = 0;
  for (const auto& c : cases) {
    if (!prefix.empty() && c.id.rfind(prefix, 0) == 0 && shown < 5) {
      hint += "\n  " + c.id;
      ++shown;
    }
  }
  throw ContractError(fmt::format("--case: no case has the id \"{}\"{}", id,
                                  hint.empty() ? " (`samebits run --dry-run` lists them)"
                                               : "; cases with the same prefix:" + hint));
}

}  // namespace

std::uint32_t shard_of(const std::string& id, std::uint32_t count) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : id) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return count == 0 ? 0 : static_cast<std::uint32_t>(h % count);
}

namespace {

std::vector<CaseSpec> by_id_or_filter(std::vector<CaseSpec> cases, const CaseSelection& selection) {
  if (!selection.case_id.empty()) return exactly(std::move(cases), selection.case_id);
  if (selection.filter.empty()) return cases;
  std::regex re;
  try {
    re = std::regex("(?:^|[/,])(?:" + selection.filter + ")", std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw ContractError(
        fmt::format("--filter: invalid regular expression \"{}\": {}", selection.filter, e.what()));
  }
  std::vector<CaseSpec> kept;
  for (auto& c : cases) {
    if (std::regex_search(c.id, re)) kept.push_back(std::move(c));
  }
  if (kept.empty()) {
    throw ContractError(fmt::format(
        "--filter \"{}\" selects no case (it matches at the start of the id or of a part after / "
        "or ,; `samebits run --dry-run` lists the ids)",
        selection.filter));
  }
  return kept;
}

}  // namespace

std::vector<CaseSpec> select_cases(std::vector<CaseSpec> cases, const CaseSelection& selection) {
  if (selection.shard_count == 0 || selection.shard_index >= selection.shard_count) {
    throw ContractError(fmt::format("--shard {}/{}: the index must be below the count (0..{})",
                                    selection.shard_index, selection.shard_count,
                                    selection.shard_count == 0 ? 0 : selection.shard_count - 1));
  }
  std::vector<CaseSpec> kept = by_id_or_filter(std::move(cases), selection);
  if (selection.shard_count == 1) return kept;
  std::vector<CaseSpec> share;
  for (auto& c : kept) {
    if (shard_of(c.id, selection.shard_count) == selection.shard_index)
      share.push_back(std::move(c));
  }
  return share;
}

std::string device_of_case(const std::string& id) {
  std::size_t pos = 0;
  for (int i = 0; i < 3 && pos != std::string::npos; ++i)
    pos = id.find('/', pos == 0 ? 0 : pos + 1);
  if (pos == std::string::npos) return "";
  const auto end = id.find('/', pos + 1);
  return id.substr(pos + 1, end == std::string::npos ? std::string::npos : end - pos - 1);
}

}  // namespace samebits
