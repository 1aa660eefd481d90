// Joining the reports of a run's shares (--shard, --devices all, job arrays) into the report of the
// whole run: cases in plan order, checks judged again over all of them, one summary.
#include "reports/model/report_merge.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/errors.h"
#include "reports/model/baseline.h"
#include "reports/model/platform.h"

namespace samebits {
namespace {

std::set<std::string> contract_digests(const Report& r) {
  std::set<std::string> out;
  for (const auto& c : r.contracts) out.insert(c.name + "@" + c.sha256);
  return out;
}

}  // namespace

Report merge_reports(const std::vector<ReportPart>& parts) {
  if (parts.empty()) throw ContractError("report merge: no reports to merge");
  const Report& first = parts.front().report;
  const PlatformFingerprint platform = fingerprint_of(first.environment);
  for (const auto& part : parts) {
    const Report& r = part.report;
    const auto refuse = [&](const std::string& why) {
      throw ContractError(
          fmt::format("{}: cannot be merged with {}: {}", part.source, parts.front().source, why));
    };
    if (r.dispatch) refuse("it is a sweep's report; sweeps are not sharded");
    if (contract_digests(r) != contract_digests(first)) refuse("other contracts (or versions)");
    if (r.settings.device != first.settings.device) refuse("another device");
    if (r.settings.seed != first.settings.seed) refuse("another --seed");
    const auto diff = differences(platform, fingerprint_of(r.environment));
    if (!diff.empty()) refuse(fmt::format("another platform ({})", fmt::join(diff, "; ")));
    if (!r.plan) {
      throw ContractError(fmt::format(
          "{}: records no plan (written by a samebits before report schema 3.1): run its share "
          "again with this samebits to merge it",
          part.source));
    }
    if (r.plan->sha256 != first.plan->sha256) {
      refuse("another plan (its --filter, --case or the samebits that planned it differ)");
    }
  }
  const std::int64_t plan_cases = first.plan->cases;

  Report merged;
  merged.tool = first.tool;
  merged.command = first.command;
  merged.environment = first.environment;
  merged.contracts = first.contracts;
  merged.plan = first.plan;
  merged.settings = first.settings;
  merged.settings.shard.reset();
  merged.settings.merged_from.clear();
  PlannedCounts planned;
  std::map<std::string, Expectation> nearest;
  std::set<std::string> nearest_varying;
  std::set<std::string> seen;
  double slowest = 0;
  for (const auto& part : parts) {
    merged.settings.merged_from.push_back({part.source, part.report.settings.shard});
    slowest = std::max(slowest, part.report.summary.duration_s);
    for (const auto& g : part.report.checks) {
      std::int64_t& whole = planned[planned_key(g.contract, g.check, g.impl, g.device)];
      whole = std::max(whole, g.planned);
      if (g.nearest_observed != Expectation::unknown) {
        nearest[check_key(g.contract, g.check, g.impl)] = g.nearest_observed;
      }
      if (g.nearest_varying) nearest_varying.insert(check_key(g.contract, g.check, g.impl));
    }
    for (const auto& c : part.report.cases) {
      if (c.index < 0 || c.index >= plan_cases) {
        throw ContractError(
            fmt::format("{}: case {} is at position {}, outside its plan of {} cases", part.source,
                        c.id, c.index, plan_cases));
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
                   [](const CaseResult& a, const CaseResult& b) { return a.index < b.index; });
  merged.checks = judge_checks(merged.cases, planned);
  for (auto& g : merged.checks) {
    if (g.outcome != Outcome::finding) continue;
    const std::string key = check_key(g.contract, g.check, g.impl);
    const auto it = nearest.find(key);
    if (it != nearest.end()) g.nearest_observed = it->second;
    g.nearest_varying = nearest_varying.count(key) > 0;
  }
  merged.summary = summarize(merged.cases, merged.checks);
  merged.summary.duration_s = slowest;  // the shares ran side by side: the slowest one's time
  return merged;
}

}  // namespace samebits
