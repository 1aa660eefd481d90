// The contract model: what op to run, which implementations, the input space to sweep, and the
// checks with each implementation's expected outcome. Parsed from contracts/*.json; see
// contract.schema.json.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/json_document.h"
#include "contracts/check_kind.h"
#include "contracts/input_spec.h"

namespace samebits {

enum class CompareMode { bitwise, ulp, allclose, indices };
enum class Expectation { holds, violated, unknown };

const std::vector<std::string>& compare_mode_names();
const std::vector<std::string>& expectation_names();
const std::vector<std::string>& device_names();  // "cpu", "cuda"
std::string to_string(CompareMode mode);
std::string to_string(Expectation expectation);

// How two outputs are compared. Tolerances follow torch.testing.assert_close: rtol and atol come
// together or not at all (then the per-dtype defaults apply).
struct Comparison {
  CompareMode mode = CompareMode::bitwise;
  std::optional<double> rtol;
  std::optional<double> atol;
  std::int64_t max_ulp = 0;
  bool equal_nan = false;
  std::optional<std::int64_t> max_mismatches;   // budget: this many mismatches still hold
  std::optional<double> max_mismatch_fraction;  // budget as a share of elements
  std::vector<std::string> outputs;             // empty: every output of the op
};

// One named axis; its values may differ per device ("any" covers devices without their own list).
struct AxisDecl {
  std::string name;
  std::map<std::string, std::vector<Json>> values_by_device;
  std::string json_path;
  // Values for a device, or nullptr when the axis has none there.
  const std::vector<Json>* values_for(const std::string& device) const;
};

// Axes in declaration order; the first axis varies slowest when expanded.
struct SweepDecl {
  std::vector<AxisDecl> axes;
  const AxisDecl* find(const std::string& name) const;
};
// Axes of `base` with those of `override_` replacing same-named ones and new ones appended.
SweepDecl merge_sweeps(const SweepDecl& base, const SweepDecl& override_);

struct CheckDecl {
  std::string name;  // unique within the contract; defaults to the kind
  CheckKind kind = CheckKind::determinism;
  std::string description;
  Comparison compare;
  SweepDecl sweep;      // added to (and overriding) the contract's sweep
  std::string against;  // equivalence: the implementation compared with
  // A promise, implementation -> device ("any", "cpu", "cuda") -> expected outcome: it holds on
  // every machine (or is "unknown": reported, never gating).
  std::map<std::string, std::map<std::string, Expectation>> expect;
  // Implementations given as "observed": no promise; what they do was seen on platforms and is
  // recorded with each platform's fingerprint (contracts/observed/*.json).
  std::set<std::string> observed;
  std::string json_path;
  // The promise of `impl` on `device` (unknown for an observed implementation).
  Expectation expected(const std::string& impl, const std::string& device) const;
  bool is_observed(const std::string& impl) const { return observed.count(impl) > 0; }
};

struct Contract {
  std::string name;    // the file stem unless the contract names itself
  std::string source;  // a path, or "embedded:<file>" for the default suite
  std::string sha256;  // of the contract's bytes
  std::string text;    // the bytes themselves, so a report can carry them
  std::string op;
  std::string description;
  std::vector<std::string> implementations;
  SweepDecl sweep;
  std::vector<CheckDecl> checks;
  // A schema op's ("op": "aten::NAME[.OVERLOAD]") arguments and outputs; none for a registry op.
  std::optional<InputSpec> inputs;
};

// Structural parsing: types, field names, enum values, required fields. Op-specific meaning (does
// the op exist, which axes does it take) is checked by the harness against its op registry.
Contract parse_contract(const std::string& text, const std::string& source);
Contract load_contract_file(const std::string& path);

}  // namespace samebits
