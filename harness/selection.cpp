// Which planned cases a run keeps: all, those --filter (POSIX ERE) selects, or the one --case
// names; a filter matches at the start of the id or of a part: "softmax/" is not log_softmax.
#include "harness/selection.h"

#include <fmt/format.h>
#include <regex.h>

#include "common/digest.h"
#include "common/errors.h"

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

// A --filter compiled as a POSIX extended regular expression. glibc matches those without
// backtracking (a pattern like (a+)+b takes time linear in the id, where std::regex's
// ECMAScript engine took minutes); back-references, the one exception, are refused.
class FilterPattern {
 public:
  explicit FilterPattern(const std::string& filter) {
    for (std::size_t i = 0; i + 1 < filter.size(); ++i) {
      if (filter[i] == '\\' && filter[i + 1] >= '1' && filter[i + 1] <= '9') {
        throw ContractError(fmt::format(
            "--filter \"{}\": back-references (\\{}) are not accepted (they can take exponential "
            "time); use a POSIX extended regular expression without them",
            filter, filter[i + 1]));
      }
      if (filter[i] == '\\') ++i;
    }
    const std::string anchored = "(^|[/,])(" + filter + ")";
    const int rc = ::regcomp(&re_, anchored.c_str(), REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char why[256];
      ::regerror(rc, &re_, why, sizeof why);
      throw ContractError(fmt::format(
          "--filter: invalid POSIX extended regular expression \"{}\": {}", filter, why));
    }
  }
  ~FilterPattern() { ::regfree(&re_); }
  FilterPattern(const FilterPattern&) = delete;
  FilterPattern& operator=(const FilterPattern&) = delete;
  bool matches(const std::string& id) const {
    return ::regexec(&re_, id.c_str(), 0, nullptr, 0) == 0;
  }

 private:
  regex_t re_{};
};

std::vector<CaseSpec> by_id_or_filter(std::vector<CaseSpec> cases, const CaseSelection& selection) {
  if (!selection.case_id.empty()) return exactly(std::move(cases), selection.case_id);
  if (selection.filter.empty()) return cases;
  const FilterPattern pattern(selection.filter);
  std::vector<CaseSpec> kept;
  for (auto& c : cases) {
    if (pattern.matches(c.id)) kept.push_back(std::move(c));
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

std::vector<bool> ids_matching(const std::vector<std::string>& ids, const std::string& filter) {
  const FilterPattern pattern(filter);
  std::vector<bool> out;
  out.reserve(ids.size());
  for (const auto& id : ids) out.push_back(pattern.matches(id));
  return out;
}

SelectedCases select_cases(std::vector<CaseSpec> cases, const CaseSelection& selection) {
  if (selection.shard_count == 0 || selection.shard_index >= selection.shard_count) {
    throw ContractError(fmt::format("--shard {}/{}: the index must be below the count (0..{})",
                                    selection.shard_index, selection.shard_count,
                                    selection.shard_count == 0 ? 0 : selection.shard_count - 1));
  }
  SelectedCases out;
  std::vector<CaseSpec> kept = by_id_or_filter(std::move(cases), selection);
  std::string ids;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    kept[i].index = static_cast<std::int64_t>(i);
    ids += kept[i].id + "\n";
  }
  out.run_cases = static_cast<std::int64_t>(kept.size());
  out.run_ids_sha256 = sha256_hex(ids);
  if (selection.shard_count == 1) {
    out.cases = std::move(kept);
    return out;
  }
  for (auto& c : kept) {
    if (shard_of(c.id, selection.shard_count) == selection.shard_index)
      out.cases.push_back(std::move(c));
  }
  return out;
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
