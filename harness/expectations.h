// Which expectation a case is judged against on this machine: the contract's promise, or the
// outcome recorded on a platform whose fingerprint covers this one, or none (then a finding).
#pragma once

#include <string>
#include <vector>

#include "contracts/contract.h"
#include "reports/model/baseline.h"
#include "reports/model/platform.h"
#include "reports/model/report.h"

namespace samebits {

struct ResolvedExpectation {
  Expectation expected = Expectation::unknown;
  ExpectationSource from = ExpectationSource::promise;
  std::string observed_on;  // the covering platform's name, for observations
  bool varying = false;     // the covering platform records the check as "varies": nothing expected
};

// What the nearest recorded platform saw of a check, for a finding: its verdict, or that it records
// the check as "varies" (outcome unknown, varying); unknown and not varying where it saw nothing.
struct NearestOutcome {
  Expectation outcome = Expectation::unknown;
  bool varying = false;
};

class ExpectationResolver {
 public:
  // `recorded`: the platforms' observations (any the command names, then the embedded ones). The
  // first that covers `here` serves every observed implementation.
  ExpectationResolver(std::vector<Baseline> recorded, PlatformFingerprint here);

  ResolvedExpectation resolve(const Contract& contract, const CheckDecl& check,
                              const std::string& impl, const std::string& device) const;

  const PlatformFingerprint& here() const { return here_; }
  // The recorded platform that covers this one, or nullptr.
  const Baseline* covering() const { return covering_; }
  // Without a covering platform, the recorded one of this device that differs in the fewest fields
  // (for "how this machine differs"), or nullptr.
  const Baseline* nearest() const;
  // What nearest() saw of the check contract/check/impl; nothing where a platform covers this one.
  NearestOutcome nearest_outcome(const std::string& check_key) const;
  const std::vector<Baseline>& recorded() const { return recorded_; }

 private:
  std::vector<Baseline> recorded_;
  PlatformFingerprint here_;
  const Baseline* covering_ = nullptr;
};

}  // namespace samebits
