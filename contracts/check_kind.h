// The check kinds a contract may name, one row each. A kind's behaviour (its axes, what it runs and
// compares) lives in one file, harness/checks/<kind>.cpp; adding a kind is that file and a row
// here.
#pragma once

#include <string>
#include <vector>

namespace samebits {

// X(name, compares_implementations): the second column is true for a kind that compares an
// implementation with another one (`against`), which then takes no expectation of its own.
#define SAMEBITS_CHECK_KINDS(X)  \
  X(determinism, false)          \
  X(batch_invariance, false)     \
  X(position_invariance, false)  \
  X(layout_invariance, false)    \
  X(padding_invariance, false)   \
  X(chunking_invariance, false)  \
  X(equivalence, true)           \
  X(reference, false)            \
  X(gradient_invariance, false)  \
  X(gradient_determinism, false) \
  X(logprob_consistency, false)  \
  X(logprob_gradient_invariance, false)

enum class CheckKind {
#define SAMEBITS_CHECK_KIND_ENUM(name, against) name,
  SAMEBITS_CHECK_KINDS(SAMEBITS_CHECK_KIND_ENUM)
#undef SAMEBITS_CHECK_KIND_ENUM
};

// Every kind, in table order.
const std::vector<CheckKind>& all_check_kinds();
const std::vector<std::string>& check_kind_names();
std::string to_string(CheckKind kind);
// Throws std::invalid_argument naming the accepted kinds.
CheckKind parse_check_kind(const std::string& name);
// True for a kind that compares an implementation with the one named in `against`.
bool compares_implementations(CheckKind kind);

}  // namespace samebits
