// What a schema-op contract ("op": "aten::layer_norm") says about the op's arguments: each tensor's
// shape as expressions of the sweep's axes, dtype, values and batch (item) dim, each other argument
// a literal or an axis, the outputs' batch dims. Torch-free: the schema itself is checked later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/json_document.h"
#include "contracts/shape_expr.h"

namespace samebits {

struct Contract;

// How a tensor argument's values are drawn: a generator of cases/generators.h (by name, or the
// value of an axis), or integers in [low, high) (indices, targets).
struct TensorValues {
  std::string generator = "normal";  // used when neither axis nor integers is given
  std::string generator_axis;
  std::optional<ShapeExpr> low, high;
  bool integers() const { return low.has_value(); }
};

struct TensorInput {
  std::vector<ShapeExpr> shape;  // one item's shape
  std::string dtype;             // a dtype name (cases/dtypes.h), or "" when dtype_axis is set
  std::string dtype_axis;
  TensorValues values;
  // The dim items are concatenated along; none: one tensor shared by every item (a weight).
  std::optional<std::int64_t> batch_dim;
  // The dim whose extent is the contract's sequence axis (padding and chunking cut along it).
  std::optional<std::int64_t> sequence_dim;
  // Integer values that are places along the batch dim of this other batched input (embedding
  // bags' offsets): each item's values move by where the item starts there in the batch.
  std::string indexes;
};

// A non-tensor argument: a JSON literal (null: None) or the value of an axis. Its meaning (an
// integer expression, a float, a dtype name, ...) follows the schema's type for the argument.
struct ValueInput {
  Json literal;
  std::string axis;  // non-empty: the value of this axis at each point
};

struct InputArg {
  std::string arg;  // the schema's argument name
  std::optional<TensorInput> tensor;
  ValueInput value;  // when not a tensor
  std::string json_path;
};

struct OutputDecl {
  std::string name;  // a return's name in the schema, or out0, out1, ...
  std::optional<std::int64_t> batch_dim;
  std::optional<std::int64_t> sequence_dim;
  std::string json_path;
};

struct InputSpec {
  std::vector<InputArg> args;
  std::vector<OutputDecl> outputs;  // empty: every return, with the default dims
  std::string sequence;             // the axis of the items' variable length ("": none)
  std::string key;                  // the spec's JSON, as written: what identifies it

  const InputArg* find(const std::string& arg) const;
  // The first tensor input with a batch dim, and with a sequence dim (outputs' defaults).
  const TensorInput* first_batched() const;
  const TensorInput* first_sequenced() const;
};

// One axis an expression or a field reads, with the JSON path that reads it.
struct AxisUse {
  std::string axis;
  std::string json_path;
  std::string what;  // "shape", "dtype", "generator", "value", ...
};
std::vector<AxisUse> axis_uses(const InputSpec& spec);

// Reads "inputs", "outputs" and "sequence" of a contract `doc` (paths relative to it). Throws
// FieldError (common/json_fields.h) naming the field and the accepted forms.
InputSpec read_input_spec(const Json& doc);

// Throws ContractError unless `use.axis` is in the sweep of every check of the contract (its own
// sweep merged with the contract's), naming the path that reads it and the axes there are.
void check_axis_known(const AxisUse& use, const Contract& contract);

// What needs the rest of the contract: every axis read is in the sweep of every check, the
// checks need what the spec has (padding and chunking a sequence dim). Throws ContractError.
void check_input_spec(const InputSpec& spec, const Contract& contract);

// "ns::name" or "ns::name.overload": the form of a schema op's name.
bool is_schema_name(const std::string& op);

}  // namespace samebits
