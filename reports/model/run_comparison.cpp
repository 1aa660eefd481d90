// Two runs of the same contracts compared: which check verdicts changed (these gate) and which
// cases kept their verdict but not their bits (digest drift), for `run --baseline` and `report
// diff`.
#include "reports/model/run_comparison.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>

#include "common/errors.h"
#include "common/json_fields.h"
#include "reports/model/report.h"

namespace samebits {
namespace {

bool decided(Verdict v) {
  return v == Verdict::holds || v == Verdict::violated;
}
Expectation as_outcome(Verdict v) {
  return v == Verdict::violated ? Expectation::violated : Expectation::holds;
}

std::vector<OutputDigests> digests_of(const CaseResult& c) {
  std::vector<OutputDigests> out;
  for (const auto& o : c.outputs) out.push_back({o.name, o.baseline_sha256, o.variant_sha256});
  return out;
}

bool same_digests(const std::vector<OutputDigests>& a, const std::vector<OutputDigests>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].baseline_sha256 != b[i].baseline_sha256 ||
        a[i].variant_sha256 != b[i].variant_sha256) {
      return false;
    }
  }
  return true;
}

// A baseline records one platform: a report of another is refused, naming what differs from
// `against` (the first report, or the baseline).
void require_platform(const Baseline& baseline, const Report& report,
                      const std::string& report_name, const char* against) {
  const auto diffs = differences(baseline.platform, fingerprint_of(report.environment));
  if (!diffs.empty()) {
    throw ContractError(
        fmt::format("{}: ran on another platform than {} ({}); a baseline records "
                    "one platform",
                    report_name, against, fmt::join(diffs, "; ")));
  }
}

// The (contract, impl, device) triples whose determinism check `report` saw violated: their cases
// vary from run to run on this platform.
std::set<std::string> nondeterministic(const Report& report) {
  std::set<std::string> out;
  for (const auto& g : report.checks) {
    if (g.kind == CheckKind::determinism && g.observed == Verdict::violated) {
      out.insert(g.contract + "/" + g.impl + "/" + g.device);
    }
  }
  return out;
}
bool varies_in(const std::set<std::string>& nondeterministic, const CaseResult& c) {
  return nondeterministic.count(c.contract + "/" + c.impl + "/" + c.device) > 0;
}

}  // namespace

Baseline baseline_of(const Report& report, const std::string& name) {
  Baseline b;
  b.name = name;
  b.platform = fingerprint_of(report.environment);
  b.recorded = Json{{"created", report.created}, {"tool", report.tool}};
  for (const auto& g : report.checks) {
    if (decided(g.observed))
      b.checks[check_key(g.contract, g.check, g.impl)] = as_outcome(g.observed);
  }
  const auto varying = nondeterministic(report);
  for (const auto& c : report.cases) {
    if (!decided(c.verdict)) continue;
    b.cases[c.id] = CaseRecord{as_outcome(c.verdict), digests_of(c), {}, varies_in(varying, c)};
  }
  return b;
}

AddedRun add_run(Baseline& baseline, const Report& report, const std::string& report_name) {
  require_platform(baseline, report, report_name, "the first report");
  AddedRun added;
  for (const auto& g : report.checks) {
    if (!decided(g.observed)) continue;
    const std::string key = check_key(g.contract, g.check, g.impl);
    const auto it = baseline.checks.find(key);
    if (it == baseline.checks.end() || it->second == Expectation::unknown ||
        it->second == as_outcome(g.observed))
      continue;
    it->second = Expectation::unknown;  // seen both ways on this platform: varies
    added.varying_checks.push_back(key);
  }
  std::vector<std::string>& varied = added.varied_cases;
  const auto varying = nondeterministic(report);
  for (const auto& c : report.cases) {
    if (!decided(c.verdict)) continue;
    const auto it = baseline.cases.find(c.id);
    if (it == baseline.cases.end()) continue;
    CaseRecord& record = it->second;
    record.varies = record.varies || varies_in(varying, c);
    const auto digests = digests_of(c);
    bool known = same_digests(record.outputs, digests);
    for (const auto& other : record.also_seen) known = known || same_digests(other, digests);
    if (known) continue;
    record.also_seen.push_back(digests);
    record.varies = true;
    varied.push_back(c.id);
  }
  return added;
}

std::vector<std::string> replace_from(Baseline& baseline, const Report& report,
                                      const std::string& report_name) {
  require_platform(baseline, report, report_name, "the baseline");
  for (const auto& g : report.checks) {
    if (!decided(g.observed)) continue;
    const std::string key = check_key(g.contract, g.check, g.impl);
    // A check recorded as varying stays so: one more verdict is no evidence that it stopped.
    if (const auto it = baseline.checks.find(key);
        it != baseline.checks.end() && it->second == Expectation::unknown)
      continue;
    baseline.checks[key] = as_outcome(g.observed);
  }
  std::vector<std::string> changed;
  const auto varying = nondeterministic(report);
  for (const auto& c : report.cases) {
    if (!decided(c.verdict)) continue;
    CaseRecord fresh{as_outcome(c.verdict), digests_of(c), {}, varies_in(varying, c)};
    const auto it = baseline.cases.find(c.id);
    if (it != baseline.cases.end() && it->second.verdict == fresh.verdict) {
      bool known = same_digests(it->second.outputs, fresh.outputs);
      for (const auto& other : it->second.also_seen)
        known = known || same_digests(other, fresh.outputs);
      if (known) {
        it->second.varies = it->second.varies || fresh.varies;
        continue;
      }
    }
    // A case known to vary stays so: new bits of a varying case are no evidence that it stopped.
    if (it != baseline.cases.end()) fresh.varies = fresh.varies || it->second.varies;
    changed.push_back(c.id);
    baseline.cases[c.id] = std::move(fresh);
  }
  return changed;
}

RunComparison compare_runs(const Baseline& before, const Report& after, const std::string& name) {
  RunComparison out;
  out.before = before.name;
  out.after = name;
  out.before_platform = before.platform;
  out.after_platform = fingerprint_of(after.environment);
  out.platform_differences = differences(before.platform, out.after_platform);
  out.before_has_digests = !before.cases.empty();

  std::set<std::string> seen;
  for (const auto& g : after.checks) {
    if (!decided(g.observed)) continue;
    const std::string key = check_key(g.contract, g.check, g.impl);
    seen.insert(key);
    const auto it = before.checks.find(key);
    if (it == before.checks.end()) {
      out.checks_only_after.push_back(key);
      continue;
    }
    if (it->second == Expectation::unknown) {  // seen both ways there: nothing to compare
      out.checks_varying.push_back(key);
      continue;
    }
    ++out.checks_compared;
    const Expectation now = as_outcome(g.observed);
    if (now == it->second) continue;
    // A subset that missed the earlier run's violation says nothing about the whole check.
    if (it->second == Expectation::violated && g.cases < g.planned) {
      out.not_judged.push_back(key);
      continue;
    }
    out.verdict_changes.push_back({key, it->second, now});
  }
  for (const auto& [key, outcome] : before.checks) {
    if (!seen.count(key)) out.checks_only_before.push_back(key);
  }

  std::set<std::string> ran;
  for (const auto& c : after.cases) {
    if (!decided(c.verdict)) continue;
    ran.insert(c.id);
    const auto it = before.cases.find(c.id);
    if (it == before.cases.end()) {
      if (out.before_has_digests) ++out.cases_only_after;
      continue;
    }
    ++out.cases_compared;
    CaseDrift drift{c.id, it->second.verdict, as_outcome(c.verdict), {}};
    const auto digests = digests_of(c);
    if (!same_digests(it->second.outputs, digests)) {
      bool also = false;
      for (const auto& other : it->second.also_seen) also = also || same_digests(other, digests);
      if (also) {
        out.matched_also_seen.push_back(c.id);
        continue;
      }
    }
    std::map<std::string, const OutputDigests*> earlier;
    for (const auto& o : it->second.outputs) earlier[o.name] = &o;
    if (earlier.size() != c.outputs.size()) drift.outputs.push_back("*");
    for (const auto& o : c.outputs) {
      const auto e = earlier.find(o.name);
      if (e == earlier.end()) continue;
      if (e->second->baseline_sha256 != o.baseline_sha256 ||
          e->second->variant_sha256 != o.variant_sha256) {
        drift.outputs.push_back(o.name);
      }
    }
    if (drift.outputs.empty() && drift.before == drift.after) continue;
    (it->second.varies ? out.varied : out.drift).push_back(std::move(drift));
  }
  for (const auto& [id, record] : before.cases) {
    if (!ran.count(id)) ++out.cases_only_before;
  }
  return out;
}

namespace {

// The first `max_rows` of `rows`, one line each under `tag`, and how many more.
std::string drift_rows(const char* tag, const std::vector<CaseDrift>& rows, std::size_t max_rows) {
  std::string out;
  for (std::size_t i = 0; i < rows.size() && i < max_rows; ++i) {
    const CaseDrift& d = rows[i];
    out += fmt::format(
        "  {:<8} {}: {}{}\n", tag, d.id,
        d.outputs.empty() ? "verdict" : "outputs " + fmt::format("{}", fmt::join(d.outputs, ", ")),
        d.before == d.after ? ""
                            : fmt::format(" ({} -> {})", to_string(d.before), to_string(d.after)));
  }
  if (rows.size() > max_rows) {
    out += fmt::format("  ... and {} more (the JSON lists every one)\n", rows.size() - max_rows);
  }
  return out;
}

}  // namespace

std::string comparison_text(const RunComparison& c, std::size_t max_rows) {
  std::string out;
  if (c.platform_differences.empty()) {
    out += fmt::format("compared with {} (same platform: {})\n", c.before,
                       c.after_platform.describe());
  } else {
    out += fmt::format("compared with {}, recorded on another platform ({}); {} here\n", c.before,
                       fmt::join(c.platform_differences, "; "), c.after_platform.describe());
  }
  out += fmt::format("{} checks compared: {} verdict changes", c.checks_compared,
                     c.verdict_changes.size());
  if (!c.not_judged.empty()) {
    out += fmt::format(
        ", {} not judged (this run is a subset and did not meet the earlier "
        "violation)",
        c.not_judged.size());
  }
  out += "\n";
  for (const auto& v : c.verdict_changes) {
    out +=
        fmt::format("  CHANGED  {}: {} -> {}\n", v.check, to_string(v.before), to_string(v.after));
  }
  if (!c.checks_varying.empty()) {
    out += fmt::format("{} checks recorded as varying on {} (seen both ways there): not compared\n",
                       c.checks_varying.size(), c.before);
    for (const auto& key : c.checks_varying) out += fmt::format("  VARIES   {}\n", key);
  }
  if (!c.before_has_digests) {
    out += "no case digests in that baseline (outcomes only): drift not compared\n";
  } else {
    out += fmt::format("{} cases compared: {} drifted (same verdict or not, other bits)\n",
                       c.cases_compared, c.drift.size());
    if (!c.matched_also_seen.empty()) {
      out += fmt::format(
          "  ({} gave digests {} also recorded from another run: known to vary "
          "from run to run, not drift)\n",
          c.matched_also_seen.size(), c.before);
    }
    out += drift_rows("DRIFT", c.drift, max_rows);
    if (!c.varied.empty()) {
      out += fmt::format(
          "{} drifted cases vary from run to run on {} (its determinism check was violated, or "
          "it saw several digests): reported, not gating\n",
          c.varied.size(), c.before);
      out += drift_rows("VARIES", c.varied, max_rows);
    }
  }
  if (!c.checks_only_before.empty() || !c.checks_only_after.empty() || c.cases_only_before ||
      c.cases_only_after) {
    out += fmt::format(
        "not in both: {} checks and {} cases only in {}, {} checks and {} cases "
        "only in {}\n",
        c.checks_only_before.size(), c.cases_only_before, c.before, c.checks_only_after.size(),
        c.cases_only_after, c.after);
  }
  return out;
}

void to_json(Json& j, const VerdictChange& v) {
  j = Json{{"check", v.check}, {"before", to_string(v.before)}, {"after", to_string(v.after)}};
}

void from_json(const Json& j, VerdictChange& v) {
  const Fields f(j);
  v.check = f.text("check");
  v.before = f.enumerated<Expectation>("before", expectation_names(), Expectation::holds);
  v.after = f.enumerated<Expectation>("after", expectation_names(), Expectation::holds);
}

void to_json(Json& j, const CaseDrift& d) {
  j = Json{{"id", d.id},
           {"before", to_string(d.before)},
           {"after", to_string(d.after)},
           {"outputs", d.outputs}};
}

void from_json(const Json& j, CaseDrift& d) {
  const Fields f(j);
  d.id = f.text("id");
  d.before = f.enumerated<Expectation>("before", expectation_names(), Expectation::holds);
  d.after = f.enumerated<Expectation>("after", expectation_names(), Expectation::holds);
  d.outputs = f.list<std::string>("outputs");
}

void to_json(Json& j, const RunComparison& c) {
  j = Json::object();
  j["before"] = c.before;
  j["after"] = c.after;
  j["before_platform"] = c.before_platform;
  j["after_platform"] = c.after_platform;
  j["same_platform"] = c.platform_differences.empty();
  j["platform_differences"] = c.platform_differences;
  j["checks_compared"] = c.checks_compared;
  j["verdict_changes"] = c.verdict_changes;
  j["not_judged"] = c.not_judged;
  j["checks_varying"] = c.checks_varying;
  j["digests_compared"] = c.before_has_digests;
  j["cases_compared"] = c.cases_compared;
  j["drift"] = c.drift;
  j["varied"] = c.varied;
  j["matched_also_seen"] = c.matched_also_seen;
  j["checks_only_before"] = c.checks_only_before;
  j["checks_only_after"] = c.checks_only_after;
  j["cases_only_before"] = c.cases_only_before;
  j["cases_only_after"] = c.cases_only_after;
  if (!c.baseline_file.empty()) j["baseline"] = c.baseline_file;
}

void from_json(const Json& j, RunComparison& c) {
  const Fields f(j);
  c.before = f.text("before");
  c.after = f.text("after");
  c.baseline_file = f.text("baseline");
  c.before_platform = f.has("before_platform") ? f.as<PlatformFingerprint>("before_platform")
                                               : PlatformFingerprint{};
  c.after_platform =
      f.has("after_platform") ? f.as<PlatformFingerprint>("after_platform") : PlatformFingerprint{};
  c.platform_differences = f.list<std::string>("platform_differences");
  c.checks_compared = f.number<std::int64_t>("checks_compared");
  c.verdict_changes = f.list<VerdictChange>("verdict_changes");
  c.not_judged = f.list<std::string>("not_judged");
  c.checks_varying = f.list<std::string>("checks_varying");
  c.before_has_digests = f.flag("digests_compared");
  c.cases_compared = f.number<std::int64_t>("cases_compared");
  c.drift = f.list<CaseDrift>("drift");
  c.varied = f.list<CaseDrift>("varied");
  c.matched_also_seen = f.list<std::string>("matched_also_seen");
  c.checks_only_before = f.list<std::string>("checks_only_before");
  c.checks_only_after = f.list<std::string>("checks_only_after");
  c.cases_only_before = f.number<std::int64_t>("cases_only_before");
  c.cases_only_after = f.number<std::int64_t>("cases_only_after");
}

}  // namespace samebits
