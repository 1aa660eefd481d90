// A baseline: what one platform (its fingerprint) was seen to do. Its check outcomes are the
// observations that gate there; its case digests, when kept, show drift between runs.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "contracts/contract.h"
#include "reports/model/platform.h"

namespace samebits {

// 1.2: a case may be marked "varies". 1.3: a check's outcome may be "varies".
inline constexpr const char* kBaselineSchemaVersion = "1.3.0";

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
  // "contract/check/impl" -> holds or violated, for the checks with a case that ran; unknown for
  // a check seen both ways on this platform ("varies" in the file: its outcome is chance there,
  // e.g. a backward whose atomics sometimes agree), which is reported and never gates.
  std::map<std::string, Expectation> checks;
  // case id -> verdict and digests (empty for an outcomes-only baseline: an observation file).
  std::map<std::string, CaseRecord> cases;
};

// "sum/layout_invariance/aten": the key of one check of one implementation.
std::string check_key(const std::string& contract, const std::string& check,
                      const std::string& impl);

// One definition per record, both ways. Reading refuses unknown keys and throws FieldError at the
// path inside the record; parse_baseline turns that into a ContractError naming the file.
void to_json(Json& j, const OutputDigests& o);  // [name, baseline_sha256, variant_sha256]
void from_json(const Json& j, OutputDigests& o);
void to_json(Json& j, const CaseRecord& r);
void from_json(const Json& j, CaseRecord& r);
void to_json(Json& j,
             const Baseline& b);  // schema, version, name, platform, recorded, checks, cases
void from_json(const Json& j, Baseline& b);  // every field but `source`

// Throws ContractError naming `source`, the JSON path and the accepted values.
Baseline parse_baseline(const std::string& text, const std::string& source);
Baseline load_baseline_file(const std::string& path);
// The observations shipped with the default suite (contracts/observed/*.json).
std::vector<Baseline> embedded_baselines();
// The file `baseline write` writes: the JSON of to_json, one check or case per line, so that a
// reviewer's diff of two baselines shows the cases that changed.
std::string baseline_file_text(const Baseline& baseline);

}  // namespace samebits
