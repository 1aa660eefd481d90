// Which planned cases a run keeps: all, those a --filter regex selects, or the one --case names.
// A filter matches at the start of the id or of one of its parts, so "softmax/" is not log_softmax.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/plan.h"

namespace samebits {

struct CaseSelection {
  // An ECMAScript regex matched at the start of the case id or right after one of its '/' or ','
  // separators: "softmax/" selects contract softmax (not log_softmax), "batch_invariance" a check,
  // "dtype=bfloat16" an axis value, "N=12" N = 12, 120, 1200.
  std::string filter;
  std::string case_id;  // exactly this id
  // A deterministic share of the cases (after filter or case): those whose id hashes to `index`
  // modulo `count`. The same ids land in the same share on every machine and every run.
  std::uint32_t shard_index = 0;
  std::uint32_t shard_count = 1;
};

// The share a case id belongs to among `count`: FNV-1a of the id, modulo count (stable across
// compilers and machines, unlike std::hash).
std::uint32_t shard_of(const std::string& id, std::uint32_t count);

// The cases a run keeps: the share's, each numbered by its position in the whole run
// (CaseSpec::index), and what every share of the run has in common.
struct SelectedCases {
  std::vector<CaseSpec> cases;  // this share's, in plan order
  std::int64_t run_cases = 0;   // the whole run's: after --filter or --case, before --shard
  std::string run_ids_sha256;   // of the whole run's case ids, in order
};

// Throws ContractError for an invalid regex, an unknown --case id (listing ids that share its
// prefix), or a filter that keeps nothing (an empty shard is not an error: there may be more
// shards than cases).
SelectedCases select_cases(std::vector<CaseSpec> cases, const CaseSelection& selection);

// Whether each of `ids` matches `filter` as --filter matches (the same syntax and errors, but an
// empty result is no error): for `samebits show REPORT --filter`.
std::vector<bool> ids_matching(const std::vector<std::string>& ids, const std::string& filter);

// The device named by a case id (contract/check/impl/device/...), or "".
std::string device_of_case(const std::string& id);

}  // namespace samebits
