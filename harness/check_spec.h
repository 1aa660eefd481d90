// What planning knows of a check kind: what it compares, the axes it adds and the points it can
// never run. Torch-free; the run of each kind builds on it in harness/checks/<kind>.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cases/sweep.h"
#include "contracts/check_kind.h"
#include "harness/axis_spec.h"

namespace samebits {

class CheckSpec {
 public:
  virtual ~CheckSpec() = default;
  virtual CheckKind kind() const = 0;
  // What the two sides are, in a few words, for `samebits list`.
  virtual std::string compares() const = 0;
  // The axes the kind reads beside the op's own, with their defaults.
  virtual std::vector<AxisSpec> axes() const = 0;
  // Why a point (defaults filled in) can never run under this kind, or nothing.
  virtual std::optional<std::string> impossible(const Point& point) const { return std::nullopt; }
};

// The spec of a kind: the row of contracts/check_kind.h and the file harness/checks/<kind>.cpp.
const CheckSpec& check_spec_for(CheckKind kind);

}  // namespace samebits
