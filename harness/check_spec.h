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

class Op;

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
  // Whether the kind compares the gradients of the items' inputs ("grad:<n>") instead of the op's
  // outputs. An op takes such a kind wherever refuses() finds nothing, whatever Op::checks()
  // lists: the adapters need no change to be differentiated.
  virtual bool differentiates() const { return false; }
  // For a kind that differentiates: why `op` can never take it, judged at `point` (the sweep's
  // smallest, defaults filled in), naming what it accepts; or nothing.
  virtual std::optional<std::string> refuses(const Op& op, const Point& point) const {
    return std::nullopt;
  }
};

// The spec of a kind: the row of contracts/check_kind.h and the file harness/checks/<kind>.cpp.
const CheckSpec& check_spec_for(CheckKind kind);

}  // namespace samebits
