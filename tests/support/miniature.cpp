// A shipped contract at test scale: the same checks, comparisons and expectations, with every size
// axis clamped small, so an op adapter's whole contract runs on the CPU in seconds.
#include "tests/support/miniature.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace samebits {
namespace {

const std::map<std::string, std::int64_t>& caps() {
  static const std::map<std::string, std::int64_t> table = {
      {"N", 40},       {"K", 33},    {"D", 33},   {"L", 40},    {"Lq", 8},
      {"Lk", 12},      {"k", 4},     {"rows", 4}, {"heads", 4}, {"kv_heads", 2},
      {"head_dim", 8}, {"chunk", 4}, {"batch", 3}};
  return table;
}

constexpr std::int64_t kShortest = 4;  // the largest k: every item stays long enough to select

std::vector<Json> unique(const std::vector<Json>& values) {
  std::vector<Json> out;
  for (const auto& v : values) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

Json scaled_lengths(const Json& lengths, std::int64_t longest) {
  std::int64_t top = 1;
  for (const auto& e : lengths) top = std::max(top, e.get<std::int64_t>());
  Json out = Json::array();
  for (const auto& e : lengths) {
    const double scaled = std::ceil(static_cast<double>(e.get<std::int64_t>()) * longest / top);
    out.push_back(std::max(kShortest, static_cast<std::int64_t>(scaled)));
  }
  return out;
}

void shrink(SweepDecl& sweep, const std::string& op) {
  for (auto& axis : sweep.axes) {
    for (auto& [device, values] : axis.values_by_device) {
      if (axis.name == "lengths") {
        for (auto& v : values) v = scaled_lengths(v, op == "sdpa" ? 12 : 40);
      } else if (const auto cap = caps().find(axis.name); cap != caps().end()) {
        // sdpa keeps d = 64, the smallest head dim the bundled attention takes.
        const std::int64_t limit = op == "sdpa" && axis.name == "head_dim" ? 64 : cap->second;
        for (auto& v : values) {
          if (v.is_number_integer()) v = std::min(v.get<std::int64_t>(), limit);
        }
      }
      values = unique(values);
    }
  }
}

}  // namespace

Contract miniature(const Contract& contract) {
  Contract small = contract;
  shrink(small.sweep, contract.op);
  for (auto& check : small.checks) shrink(check.sweep, contract.op);
  return small;
}

}  // namespace samebits
