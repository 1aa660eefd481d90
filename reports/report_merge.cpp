// Joining the reports of a run's shares (--shard, --devices all, job arrays) into the report of the
// whole run: cases in plan order, checks judged again over all of them, one summary.
#include "reports/report_merge.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "contracts/baseline.h"
#include "contracts/contract_error.h"
#include "contracts/platform.h"

namespace samebits {
namespace {

std::set<std::string> contract_digests(const Report& r) {
  std::set<std::string> out;
  for (const auto& c : r.contracts) out.insert(c.name + "@" + c.sha256);
  return out;
}

Json setting(const Report& r, const char* key) {
  return r.settings.contains(key) ? r.settings.at(key) : Json(nullptr);
}

}  // namespace

Report merge_reports(const std::vector<ReportPart>& parts,
                     const std::vector<std::string>& plan_order, const PlannedCounts& planned) {
  if (parts.empty()) throw ContractError("report merge: no reports to merge");
  const Report& first = parts.front().report;
  const PlatformFingerprint platform = fingerprint_of_environment(first.environment);
  for (const auto& part : parts) {
    const Report& r = part.report;
    const auto refuse = [&](const std::string& why) {
      throw ContractError(
          fmt::format("{}: cannot be merged with {}: {}", part.source, parts.front().source, why));
    };
    if (r.dispatch) refuse("it is a sweep's report; sweeps are not sharded");
    if (contract_digests(r) != contract_digests(first)) refuse("other contracts (or versions)");
    if (setting(r, "device") != setting(first, "device")) refuse("another device");
    if (setting(r, "seed") != setting(first, "seed")) refuse("another --seed");
    const auto diff = differences(platform, fingerprint_of_environment(r.environment));
    if (!diff.empty()) refuse(fmt::format("another platform ({})", fmt::join(diff, "; ")));
  }
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < plan_order.size(); ++i) position.emplace(plan_order[i], i);

  Report merged;
  merged.tool = first.tool;
  merged.command = first.command;
  merged.environment = first.environment;
  merged.contracts = first.contracts;
  merged.settings = first.settings;
  merged.settings.erase("shard");
  Json sources = Json::array();
  std::map<std::string, Expectation> nearest;
  std::set<std::string> seen;
  double slowest = 0;
  for (const auto& part : parts) {
    sources.push_back(Json{{"report", part.source}, {"shard", setting(part.report, "shard")}});
    slowest = std::max(slowest, part.report.summary.duration_s);
    for (const auto& g : part.report.checks) {
      if (g.nearest_observed != Expectation::unknown) {
        nearest[check_key(g.contract, g.check, g.impl)] = g.nearest_observed;
      }
    }
    for (const auto& c : part.report.cases) {
      if (!position.count(c.id)) {
        throw ContractError(
            fmt::format("{}: case {} is not in the plan of these contracts", part.source, c.id));
      }
      if (!seen.insert(c.id).second) {
        throw ContractError(
            fmt::format("{}: case {} is in more than one of the reports (shares "
                        "overlap: were they run with the same --shard count?)",
                        part.source, c.id));
      }
      merged.cases.push_back(c);
    }
  }
  std::stable_sort(merged.cases.begin(), merged.cases.end(),
                   [&](const CaseResult& a, const CaseResult& b) {
                     return position.at(a.id) < position.at(b.id);
                   });
  merged.settings["merged_from"] = sources;
  merged.checks = judge_checks(merged.cases, planned);
  for (auto& g : merged.checks) {
    const auto it = nearest.find(check_key(g.contract, g.check, g.impl));
    if (g.outcome == Outcome::finding && it != nearest.end()) g.nearest_observed = it->second;
  }
  merged.summary = summarize(merged.cases, merged.checks);
  merged.summary.duration_s = slowest;  // the shares ran side by side: the slowest one's time
  return merged;
}

}  // namespace samebits
