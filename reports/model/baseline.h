// A baseline: what one platform (its fingerprint) was seen to do. Its check outcomes are the
// observations that gate there; its case digests, when kept, show drift between runs.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "contracts/contract.h"
#include "reports/model/platform.h"

namespace samebits {

// 1.2: a case may be marked "varies".
inline constexpr const char* kBaselineSchemaVersion = "1.2.0";

// One output of a case as it came out: its name and the digests of both sides.
struct OutputDigests {
  std::string name;
  std::string baseline_sha256;
  std::string variant_sha256;
};

struct CaseRecord {
  Expectation verdict = Expectation::holds;  // holds or violated
  std::vector<OutputDigests> outputs;
  // Other digests the same platform gave for this case in other runs (`baseline write` of several
  // reports): a case that is not reproducible from run to run. Matching one of them is not drift.
  std::vector<std::vector<OutputDigests>> also_seen;
  // Known not to repeat on this platform: its implementation's determinism check was violated
  // there, or it gave other digests in another run (also_seen). Its drift is reported and does
  // not gate `run --fail-on-drift`; a verdict change of a check still does.
  bool varies = false;
};

struct Baseline {
  std::string name;    // "h100", "xeon-2core"
  std::string source;  // the file, or "embedded:observed/h100.json"
  PlatformFingerprint platform;
  Json recorded = Json::object();  // from which report: its path, commit, date
  // "contract/check/impl" -> holds or violated, for the checks with a case that ran.
  std::map<std::string, Expectation> checks;
  // case id -> verdict and digests (empty for an outcomes-only baseline: an observation file).
  std::map<std::string, CaseRecord> cases;
};

// "sum/layout_invariance/aten": the key of one check of one implementation.
std::string check_key(const std::string& contract, const std::string& check,
                      const std::string& impl);

// Throws ContractError naming `source`, the JSON path and the accepted values.
Baseline parse_baseline(const std::string& text, const std::string& source);
Baseline load_baseline_file(const std::string& path);
// The observations shipped with the default suite (contracts/observed/*.json).
std::vector<Baseline> embedded_baselines();

}  // namespace samebits
