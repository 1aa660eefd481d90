// From a check kind to the file that gives it meaning, through the one table of kinds
// (contracts/check_kind.h): a kind without its harness/checks/<kind>.cpp does not link. Its spec,
// what planning reads (harness/check_spec.h), is the same object.
#include <stdexcept>

#include "harness/checks/check.h"

namespace samebits {

const Check& check_for(CheckKind kind) {
  switch (kind) {
#define SAMEBITS_CHECK_CASE(name, against) \
  case CheckKind::name: return name##_check();
    SAMEBITS_CHECK_KINDS(SAMEBITS_CHECK_CASE)
#undef SAMEBITS_CHECK_CASE
  }
  throw std::logic_error("check kind outside SAMEBITS_CHECK_KINDS");
}

const CheckSpec& check_spec_for(CheckKind kind) {
  return check_for(kind);
}

}  // namespace samebits
