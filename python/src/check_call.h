// samebits.check(fn, ...) in C++: the contract Python wrote for fn, parsed and bound like any
// schema contract, run with fn as its op's callee through run_engine, and what went wrong in words.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "python/src/engine_call.h"

namespace samebits {

struct CheckCall {
  std::string contract_json;  // a schema contract whose op is "python::NAME"
  std::string schema;         // fn's schema: "python::NAME(Tensor x, *, int dim) -> Tensor"
  EngineCall run;             // run.contracts names the contract in messages and the report
};

// A check whose outcome fails the gate (a new violation) or that errored (a case did not run).
struct CheckFailure {
  std::string check;     // its name in the contract (the kind unless named)
  std::string kind;      // batch_invariance, ...
  std::string outcome;   // unexpected_violation, errored, ...
  std::string headline;  // "new violation: 2/2 cases violated; first: case ..., 5 of 5 differ"
  std::string detail;    // the first deciding case as `samebits show` prints it, without colour
};

struct CheckOutcome {
  EngineResult result;
  std::vector<CheckFailure> failures;  // in report order
};

// Parses and binds the contract (ContractError, naming the JSON path, for what it refuses), then
// runs it with the GIL released; fn is called with it held. Must be called with the GIL held.
CheckOutcome run_check(const pybind11::object& fn, const CheckCall& call);

}  // namespace samebits
