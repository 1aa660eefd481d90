// Two runs of the same contracts compared: which check verdicts changed (these gate) and which
// cases kept their verdict but not their bits (digest drift), for `run --baseline` and `report
// diff`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/json_document.h"
#include "reports/model/baseline.h"
#include "reports/model/platform.h"

namespace samebits {

struct Report;  // reports/model/report.h, which holds a RunComparison

// A check whose observed verdict differs from the earlier run's.
struct VerdictChange {
  std::string check;  // "contract/check/impl"
  Expectation before = Expectation::holds;
  Expectation after = Expectation::holds;
};

// A case present in both runs whose outputs' digests (or verdict) differ.
struct CaseDrift {
  std::string id;
  Expectation before = Expectation::holds;
  Expectation after = Expectation::holds;
  std::vector<std::string> outputs;  // the outputs whose digests differ ("*": the output set)
};

struct RunComparison {
  std::string before;  // the earlier run's name (a baseline's name, a report's path)
  std::string after;
  std::string baseline_file;  // `run --baseline FILE`: FILE ("" from `report diff`)
  PlatformFingerprint before_platform, after_platform;
  std::vector<std::string> platform_differences;  // empty: the same platform
  std::vector<VerdictChange> verdict_changes;
  // Checks the earlier run saw violated that this run, a subset of them, saw hold: not judged.
  std::vector<std::string> not_judged;
  // Checks the baseline records as varying (seen both ways on its platform): not compared.
  std::vector<std::string> checks_varying;
  std::vector<CaseDrift> drift;
  // Drift of cases the baseline marks as varying (CaseRecord::varies): reported, never gating.
  std::vector<CaseDrift> varied;
  // Cases whose digests were not the baseline's first but one it also saw (a case known to vary
  // from run to run on that platform): not drift.
  std::vector<std::string> matched_also_seen;
  std::int64_t checks_compared = 0, cases_compared = 0;
  std::vector<std::string> checks_only_before, checks_only_after;
  std::int64_t cases_only_before = 0, cases_only_after = 0;
  bool before_has_digests = false;  // an outcomes-only baseline cannot show drift

  bool gates(bool fail_on_drift) const {
    return !verdict_changes.empty() || (fail_on_drift && !drift.empty());
  }
};

// What a report records of its platform: every check's verdict and every case's digests (the
// baseline `samebits baseline write` writes); a case whose implementation's determinism check
// was violated in it is marked varies.
Baseline baseline_of(const Report& report, const std::string& name);

// What add_run changed: the cases with digests not recorded before, and the checks whose verdict
// differed from the one recorded (now recorded as varying).
struct AddedRun {
  std::vector<std::string> varied_cases;
  std::vector<std::string> varying_checks;
};

// Adds another run of the same platform to `baseline`: its case digests as digests also seen
// (CaseRecord::also_seen) where they differ from every set recorded, marking those cases varies
// (and those of an implementation whose determinism check the report saw violated); a check whose
// verdict differs from the one recorded is recorded as varying (Expectation::unknown), since its
// outcome is chance on this platform. Throws ContractError if the report's platform differs.
AddedRun add_run(Baseline& baseline, const Report& report, const std::string& report_name);

// Records `report` over what `baseline` held for the checks and cases it ran: their verdicts and
// digests replace the old ones (and the other digests seen for them are dropped); every other
// check and case stays. For a run of a subset (`run --filter`) after a kernel change. A case that
// gave digests the baseline already knows for it, with the same verdict, keeps its record; a case
// with other bits gets them as its only digests, and stays marked varies if it was; a check
// recorded as varying stays so (rewrite it with `baseline write`). Returns the ids
// of the cases whose digests or verdict changed. Throws ContractError if the report ran on
// another platform.
std::vector<std::string> replace_from(Baseline& baseline, const Report& report,
                                      const std::string& report_name);

// `after` is judged whole unless its checks say they ran a subset (CheckResult::cases < planned).
RunComparison compare_runs(const Baseline& before, const Report& after, const std::string& name);

// A terminal table: the platform note, verdict changes, then drift (the first `max_rows` cases).
std::string comparison_text(const RunComparison& comparison, std::size_t max_rows = 20);

// As JSON (to_json/from_json, found by ADL): a report's "baseline" and `report diff --json`.
// "same_platform" is written from platform_differences and not read back; "baseline" is written
// when baseline_file is set. Read back, absent fields take their defaults and wrong types are
// FieldErrors at their path.
void to_json(Json& j, const VerdictChange& change);
void from_json(const Json& j, VerdictChange& change);
void to_json(Json& j, const CaseDrift& drift);
void from_json(const Json& j, CaseDrift& drift);
void to_json(Json& j, const RunComparison& comparison);
void from_json(const Json& j, RunComparison& comparison);

}  // namespace samebits
