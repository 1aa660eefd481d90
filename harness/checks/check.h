// A check kind as the runner sees it: its spec (harness/check_spec.h) plus how it runs a case's
// two sides. One file per kind implements it (checks/*.cpp), ending in SAMEBITS_REGISTER_CHECK.
#pragma once

#include "contracts/check_kind.h"
#include "harness/check_spec.h"
#include "harness/checks/case_context.h"
#include "harness/op.h"

namespace samebits {

class Check : public CheckSpec {
 public:
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

// Ends a kind's file: defines its accessor over the one instance of `Class`, e.g.
// SAMEBITS_REGISTER_CHECK(determinism, Determinism).
#define SAMEBITS_REGISTER_CHECK(name, Class) \
  const Check& name##_check() {              \
    static const Class check;                \
    return check;                            \
  }

}  // namespace samebits
