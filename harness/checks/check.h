// What a check kind is to the harness: the axes it adds to a contract's sweep, the points it can
// never run, and how it runs a case's two sides. One file per kind implements it (checks/*.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "contracts/check_kind.h"
#include "harness/checks/case_context.h"
#include "harness/op.h"

namespace samebits {

class Check {
 public:
  virtual ~Check() = default;
  virtual CheckKind kind() const = 0;
  // What the two sides are, in a few words, for `samebits list`.
  virtual std::string compares() const = 0;
  // The axes the kind reads beside the op's own, with their defaults.
  virtual std::vector<AxisSpec> axes() const = 0;
  // Why a point (defaults filled in) can never run under this kind, or nothing.
  virtual std::optional<std::string> impossible(const Point& point) const { return std::nullopt; }
  // Runs the case's two sides and compares them (CaseContext::compare). Throws Unsupported when
  // the case cannot run here.
  virtual void run(CaseContext& context) const = 0;
};

// The Check of a kind: the row of contracts/check_kind.h and the file harness/checks/<kind>.cpp.
const Check& check_for(CheckKind kind);

// Each kind's file defines its accessor, e.g. `const Check& determinism_check()`.
#define SAMEBITS_DECLARE_CHECK(name, against) const Check& name##_check();
SAMEBITS_CHECK_KINDS(SAMEBITS_DECLARE_CHECK)
#undef SAMEBITS_DECLARE_CHECK

}  // namespace samebits
