// The report model: what ran, where, with what result, in plain C++ types (no torch), so renderers
// and the gate are testable anywhere. Enums until the JSON edge (reports/report.schema.json).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/json_document.h"
#include "contracts/contract.h"
#include "reports/model/dispatch_map.h"
#include "reports/model/kernel_launch.h"
#include "reports/model/run_comparison.h"
#include "reports/model/run_environment.h"
#include "reports/model/run_records.h"

namespace samebits {

// Bumped on any change to the JSON layout: major for breaking changes, minor for additions.
// 3.0: case fields at their defaults left out, kernel launches and property names in report-level
// tables, a mismatch's values and ULPs left out where its bits give them
// (reports/model/case_json.h). 3.1: the whole run's plan ("plan") and each case's position in it
// ("index"), so shares merge without planning again. 3.2: "recorded_varying" on a check and its
// cases whose covering platform records the check as "varies". 3.3: "nearest_varying" on a
// finding whose nearest recorded platform records it as "varies".
inline constexpr const char* kReportSchemaVersion = "3.3.0";

// One element where two outputs disagree.
struct Mismatch {
  std::vector<std::int64_t> index;
  double baseline = 0;
  double variant = 0;
  std::string baseline_bits;  // hex, the dtype's own width: 0x3f800000
  std::string variant_bits;
  std::optional<std::uint64_t> ulp;  // absent when not measurable (NaN vs number, integers)
};

// The ULP histogram's buckets as harness/diff.cpp counts finite pairs into them, in order.
inline const std::vector<std::string>& ulp_bucket_labels() {
  static const std::vector<std::string> labels = {"0",      "1",         "2-3",    "4-15",
                                                  "16-255", "256-65535", ">=65536"};
  return labels;
}

// Comparison of one output: baseline (the reference side) vs variant.
struct DiffStats {
  CompareMode mode = CompareMode::bitwise;
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::int64_t numel = 0;
  std::int64_t mismatched = 0;  // elements that fail the comparison
  double mismatch_fraction = 0;
  bool within = true;        // mismatches within the contract's budget (none by default)
  double max_abs_error = 0;  // over all finite pairs
  double max_rel_error = 0;
  std::optional<std::uint64_t> max_ulp;  // floating point only; absent if a non-finite pair differs
  // bucket label -> count: ulp_bucket_labels() for floating outputs, empty for integers
  std::vector<std::pair<std::string, std::int64_t>> ulp_histogram;
  std::int64_t nonfinite_mismatches = 0;
  std::vector<Mismatch> first_mismatches;  // in index order, at most a handful
  std::string tolerance;  // the rule applied, e.g. "rtol=1.3e-06 atol=1e-05 (float32 defaults)"
};

struct OutputResult {
  std::string name;
  std::string baseline_sha256;
  std::string variant_sha256;
  DiffStats diff;
};

// crashed: the case's process died under it (a signal, an exit, a broken CUDA context);
// timed_out: `run --isolate --case-timeout` killed it. Both (2.3) and error: the case could not
// run.
enum class Verdict { holds, violated, skipped, error, crashed, timed_out };
// error, crashed or timed_out: the case ran to no verdict on its bits.
inline bool did_not_run(Verdict v) {
  return v == Verdict::error || v == Verdict::crashed || v == Verdict::timed_out;
}

// Where a case's expectation comes from: the contract's promise (it holds on every machine, or is
// "unknown"), an observation recorded on a platform whose fingerprint covers this one, or nothing
// (the contract says "observed" and no recorded platform covers this one).
enum class ExpectationSource { promise, observation, none };
std::string to_string(ExpectationSource source);
const std::vector<std::string>& expectation_source_names();
std::string to_string(Verdict verdict);
const std::vector<std::string>& verdict_names();

struct CaseResult {
  std::string id;
  std::int64_t index = 0;  // the case's position in the whole run's plan (RunPlan), every share's
  std::string contract;
  std::string check;
  CheckKind kind = CheckKind::determinism;
  std::string impl;
  std::string device;
  Json params = Json::object();  // every axis, defaults filled in
  std::uint64_t seed = 0;        // written as a decimal string: JSON numbers lose bits past 2^53
  Verdict verdict = Verdict::skipped;
  Expectation expected = Expectation::unknown;  // the check's, for impl on device
  ExpectationSource expected_from = ExpectationSource::promise;
  std::string observed_on;  // the recorded platform the expectation comes from (observation)
  // An observation of "varies" (seen both ways on observed_on): expected is unknown, never gating.
  bool recorded_varying = false;
  std::string reason;    // why skipped, or the error
  std::string baseline;  // what the variant is compared with, in words
  std::string variant;
  Comparison comparison;
  std::vector<OutputResult> outputs;
  // Kernels each side launched, when kernel capture is on (empty otherwise or on the CPU).
  std::vector<KernelLaunch> baseline_kernels;
  std::vector<KernelLaunch> variant_kernels;
  // What each side's kernel choice may follow (Op::dispatch_properties), when the run records
  // them (sweeps do).
  PointProperties baseline_properties;
  PointProperties variant_properties;
  double duration_ms = 0;
};

// The verdict of one (contract, check, implementation, device) against its expectation.
enum class Outcome {
  as_expected,           // holds when expected to hold, or violated when expected to be violated
  unexpected_violation,  // a new violation: fails the gate
  stale_expectation,     // expected violated but now holds over the whole check: fails the gate
  informational,         // no expectation given ("unknown")
  not_run,               // every case skipped
  errored,               // some case raised an error and nothing else decided the outcome
  finding,               // observed on no recorded platform like this one: reported, not judged
  not_observed,          // expected violated, held in this subset of the check: not judged
};
std::string to_string(Outcome outcome);
const std::vector<std::string>& outcome_names();
bool fails_gate(Outcome outcome);

struct AxisTally {
  std::string axis;
  std::string value;
  std::int64_t violated = 0;
  std::int64_t total = 0;
};

struct CheckResult {
  std::string contract;
  std::string check;
  CheckKind kind = CheckKind::determinism;
  std::string impl;
  std::string device;
  Expectation expected = Expectation::unknown;
  ExpectationSource expected_from = ExpectationSource::promise;
  std::string observed_on;
  // observed_on records the check as "varies" (seen both ways there, e.g. a backward whose atomics
  // sometimes agree): nothing is expected, so the outcome is informational, and the reports say so.
  bool recorded_varying = false;
  // For a finding: what the nearest recorded platform of this device saw (unknown: nothing, or
  // seen both ways there: nearest_varying).
  Expectation nearest_observed = Expectation::unknown;
  bool nearest_varying = false;
  // violated if any case was, else crashed, timed_out, error, holds, skipped
  Verdict observed = Verdict::skipped;
  Outcome outcome = Outcome::not_run;
  std::int64_t planned = 0;  // the check's cases on this device in the whole contract
  std::int64_t cases = 0;    // of those, the ones this run selected
  std::int64_t held = 0;
  std::int64_t violated = 0;
  std::int64_t skipped = 0;
  std::int64_t errors = 0;
  std::int64_t crashed = 0;
  std::int64_t timed_out = 0;
  std::vector<AxisTally> violations_by_axis;  // for axes with several values
};

struct ContractInfo {
  std::string name;
  std::string source;
  std::string sha256;
  std::string op;
  std::string description;
  std::string text;  // the contract's bytes, so the report alone reruns any of its cases
};

struct Summary {
  std::int64_t cases = 0, held = 0, violated = 0, skipped = 0, errors = 0;
  std::int64_t crashed = 0, timed_out = 0;
  std::int64_t checks = 0, as_expected = 0, unexpected = 0, informational = 0;
  std::int64_t findings = 0, not_observed = 0;
  int exit_code = 0;
  double duration_s = 0;
};

struct Report {
  ToolInfo tool;
  std::vector<std::string> command;  // argv
  RunSettings settings;
  std::optional<RunPlan> plan;  // absent from reports before 3.1
  Environment environment;
  std::string created;  // ISO-8601 UTC
  std::vector<ContractInfo> contracts;
  std::vector<CheckResult> checks;
  std::vector<CaseResult> cases;
  // `run --baseline`: the comparison with the baseline, absent from other runs.
  std::optional<RunComparison> baseline_comparison;
  std::optional<DispatchMap> dispatch;  // a sweep's map (samebits sweep), absent from runs
  Summary summary;
};

}  // namespace samebits
