// A schema-op contract's inputs bound to the op's c10 schema: every argument found, typed and
// given (or defaulted), the outputs named, the axes typed; and each argument's IValue at a point.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>

#include <optional>
#include <string>
#include <vector>

#include "cases/sweep.h"
#include "contracts/contract.h"
#include "harness/axis_spec.h"

namespace samebits {

// One argument of the schema, in the schema's order.
struct BoundArg {
  enum class Source { tensor, value, schema_default };
  Source source = Source::schema_default;
  c10::Argument argument;
  const TensorInput* tensor = nullptr;  // Source::tensor
  ValueInput value;                     // Source::value
  // Source::tensor: its place among an item's inputs (batched) or the shared tensors.
  std::size_t slot = 0;
  std::optional<std::size_t> indexes_slot;  // the batched input its values are places in
  std::string json_path;
};

struct BoundOutput {
  std::string name;
  std::size_t index = 0;  // among the schema's returns
  std::int64_t batch_dim = 0;
  std::optional<std::int64_t> sequence_dim;
};

struct BoundSchema {
  std::optional<c10::OperatorHandle> handle;
  InputSpec spec;  // the args' tensor pointers point into this copy (BoundSchema does not move)
  std::vector<BoundArg> args;
  std::vector<BoundOutput> outputs;
  std::vector<AxisSpec> axes;
  std::size_t batched = 0;  // tensors per item
  std::size_t shared = 0;   // tensors every item shares
  std::string schema_text;
};

// Binds the contract's inputs to its op's schema. Throws ContractError naming the contract's file,
// the JSON path and the accepted values: an unknown op or overload, an argument missing, unknown
// or of the wrong kind, a literal of the wrong type, an unknown dtype or generator, an output
// the schema does not return.
void bind_schema(const Contract& contract, BoundSchema& out);
// The same against a schema the caller gives (a callee other than the dispatcher): out.handle
// stays empty.
void bind_schema(const Contract& contract, const c10::FunctionSchema& schema, BoundSchema& out);

// A non-tensor argument's value at `point` (literal or axis, expressions evaluated). Throws
// std::invalid_argument for a value the point cannot give.
c10::IValue value_at(const BoundArg& arg, const Point& point);

// A tensor argument's dtype and generator at `point`.
c10::ScalarType dtype_at(const TensorInput& t, const Point& point);
std::string generator_at(const TensorInput& t, const Point& point);

// The integer value of an expression at `point` (integer axes only).
std::int64_t evaluate_at(const ShapeExpr& expr, const Point& point);

}  // namespace samebits
