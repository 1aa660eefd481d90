// What a run was, typed: the tool that ran it, the whole run's plan and its settings (device,
// seed, selection, platform, how it ended); JSON only at the edge, one definition each.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/json_document.h"
#include "reports/model/platform.h"

namespace samebits {

// The report's "tool": which samebits wrote it.
struct ToolInfo {
  std::string name = "samebits";
  std::string version;
  std::string git_commit;
  std::string git_dirty = "unknown";  // "true", "false" or "unknown"
};

// The whole run's plan (3.1), the same in every share of it: its cases after --filter or --case
// and before --shard (each case records its position, CaseResult::index), and a digest of the
// device, seed, contracts and those case ids in order. `report merge` orders and counts by it.
struct RunPlan {
  std::int64_t cases = 0;
  std::string sha256;
};

// The recorded platform nearest to this one when none covers it, and how they differ.
struct NearestPlatform {
  std::string name;
  std::vector<std::string> differences;
};

// Cases taken from the journal of an interrupted run of the same plan.
struct ResumedRun {
  std::string journal;
  std::int64_t cases = 0;
  std::int64_t faults = 0;  // crashed or timed-out cases it recorded (written when there are any)
};

// A CUDA error left the context unusable in `case_id`; the run ended after it (exit 3).
struct BrokenContext {
  std::string case_id;
  std::string reason;
  std::int64_t cases_run = 0;
  std::int64_t cases_planned = 0;
};

// The run stopped on a signal after cases_run of cases_planned cases.
struct Interruption {
  std::string signal;
  std::int64_t cases_run = 0;
  std::int64_t cases_planned = 0;
  std::optional<std::string> journal;  // the journal that keeps them for --resume
};

// run --isolate: cases ran in child processes, restarted after each crash or timeout.
struct IsolatedRun {
  std::int64_t children = 0;
  std::optional<double> case_timeout_s;
};

// One share a merged report was joined from.
struct MergedShare {
  std::string report;
  std::optional<std::string> shard;  // "I/N"; none for a report of a whole run
};

struct RunSettings {
  std::string device;  // "cpu" or "cuda"
  std::uint64_t seed = 0;
  std::optional<std::string> filter;
  std::optional<std::string> case_id;
  std::optional<std::string> shard;    // "I/N"
  std::vector<std::string> contracts;  // the files named; none: the embedded default suite
  PlatformFingerprint platform;
  std::optional<std::string> observed_platform;  // the recorded platform that covers this one
  std::optional<NearestPlatform> nearest_platform;
  std::string kernel_capture;
  std::optional<int> jobs;  // absent from reports before --jobs
  std::optional<ResumedRun> resumed;
  std::optional<std::string> journal_error;  // why the run kept no (whole) journal
  std::optional<BrokenContext> context_broken;
  std::optional<Interruption> interrupted;
  std::optional<std::uint64_t> kernel_capture_dropped_records;
  std::optional<IsolatedRun> isolate;
  std::vector<MergedShare> merged_from;  // `report merge`: the shares, in the order given
};

// Written in the order above, optional parts only when present (the report's layout since 2.x;
// `plan` is 3.1). Read back leniently: parts a 2.x report lacks take their defaults, and a field
// of the wrong type is a FieldError naming its path.
void to_json(Json& j, const ToolInfo& tool);
void from_json(const Json& j, ToolInfo& tool);
void to_json(Json& j, const RunPlan& plan);
void from_json(const Json& j, RunPlan& plan);
void to_json(Json& j, const RunSettings& settings);
void from_json(const Json& j, RunSettings& settings);

}  // namespace samebits
