// Which expectation a case is judged against on this machine: the contract's promise, or the
// outcome recorded on a platform whose fingerprint covers this one, or none (then a finding).
#include "harness/expectations.h"

namespace samebits {

ExpectationResolver::ExpectationResolver(std::vector<Baseline> recorded, PlatformFingerprint here)
    : recorded_(std::move(recorded)), here_(std::move(here)) {
  for (const auto& b : recorded_) {
    if (covers(b.platform, here_)) {
      covering_ = &b;
      break;
    }
  }
}

ResolvedExpectation ExpectationResolver::resolve(const Contract& contract, const CheckDecl& check,
                                                 const std::string& impl,
                                                 const std::string& device) const {
  if (!check.is_observed(impl)) {
    return {check.expected(impl, device), ExpectationSource::promise, ""};
  }
  if (!covering_) return {Expectation::unknown, ExpectationSource::none, ""};
  const auto it = covering_->checks.find(check_key(contract.name, check.name, impl));
  // The platform ran the suite and this check had no case that ran there (all skipped): nothing
  // was seen, so nothing is expected.
  if (it == covering_->checks.end()) {
    return {Expectation::unknown, ExpectationSource::observation, covering_->name};
  }
  // Recorded as "varies" (Expectation::unknown in a Baseline): seen both ways there, so nothing.
  return {it->second, ExpectationSource::observation, covering_->name,
          it->second == Expectation::unknown};
}

const Baseline* ExpectationResolver::nearest() const {
  const Baseline* best = nullptr;
  std::size_t fewest = 0;
  for (const auto& b : recorded_) {
    if (b.platform.device != here_.device) continue;
    const std::size_t n = differences(b.platform, here_).size();
    if (!best || n < fewest) best = &b, fewest = n;
  }
  return best;
}

NearestOutcome ExpectationResolver::nearest_outcome(const std::string& key) const {
  const Baseline* near = covering_ ? nullptr : nearest();
  if (!near) return {};
  const auto it = near->checks.find(key);
  if (it == near->checks.end()) return {};
  // (a Baseline keeps "varies" as Expectation::unknown)
  return {it->second, it->second == Expectation::unknown};
}

}  // namespace samebits
