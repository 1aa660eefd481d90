// The check kinds' names and properties, read off the one table in check_kind.h, so the parser,
// the harness and `samebits list` agree on them.
#include "contracts/check_kind.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

namespace samebits {
namespace {

struct KindRow {
  CheckKind kind;
  const char* name;
  bool against;
};

const std::vector<KindRow>& rows() {
  static const std::vector<KindRow> table = {
#define SAMEBITS_CHECK_KIND_ROW(name, against) {CheckKind::name, #name, against},
      SAMEBITS_CHECK_KINDS(SAMEBITS_CHECK_KIND_ROW)
#undef SAMEBITS_CHECK_KIND_ROW
  };
  return table;
}

const KindRow& row(CheckKind kind) {
  for (const auto& r : rows()) {
    if (r.kind == kind) return r;
  }
  throw std::logic_error("check kind missing from SAMEBITS_CHECK_KINDS");
}

}  // namespace

const std::vector<CheckKind>& all_check_kinds() {
  static const std::vector<CheckKind> kinds = [] {
    std::vector<CheckKind> out;
    for (const auto& r : rows()) out.push_back(r.kind);
    return out;
  }();
  return kinds;
}

const std::vector<std::string>& check_kind_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& r : rows()) out.emplace_back(r.name);
    return out;
  }();
  return names;
}

std::string to_string(CheckKind kind) {
  return row(kind).name;
}

CheckKind parse_check_kind(const std::string& name) {
  for (const auto& r : rows()) {
    if (name == r.name) return r.kind;
  }
  throw std::invalid_argument(fmt::format("unknown check kind \"{}\"; accepted: {}", name,
                                          fmt::join(check_kind_names(), ", ")));
}

bool compares_implementations(CheckKind kind) {
  return row(kind).against;
}

}  // namespace samebits
