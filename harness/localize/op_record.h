// What localize keeps of one run: per ATen op call its name, schema, place in the call tree and in
// the model, its tensors' metadata, and per output a digest and the item's rows, never whole
// tensors.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "harness/localize/row_map.h"
#include "reports/model/kernel_launch.h"

namespace samebits::localize {

struct TensorMeta {
  std::vector<std::int64_t> shape, strides;
  std::string dtype, device;
  c10::ScalarType scalar_type = c10::ScalarType::Undefined;
};

// A non-tensor argument's value as the op received it: None, a bool, an integer, a floating
// number, a string (a dtype as contracts name it: "bfloat16"), or a list of integers.
using ArgValue = std::variant<std::monostate, bool, std::int64_t, double, std::string,
                              std::vector<std::int64_t>>;

// One argument of a top-level op, named by the op's schema: a tensor (its metadata in the op's
// inputs), a value, or something neither describes (a tensor list, a Generator), and why.
struct ArgRecord {
  std::string name;                   // "self", "dim"
  std::string type;                   // the schema's: "Tensor", "int[1]", "Scalar", "Tensor?"
  std::optional<std::size_t> tensor;  // into OpRecord::inputs; none for an absent Tensor?
  ArgValue value;                     // for a non-tensor argument
  std::string not_described;          // why neither: "a Tensor[]"
  bool defaults_to_none = false;      // the schema's default is None
};

struct OutputRecord {
  TensorMeta meta;
  // A fingerprint of the whole tensor's bits (hex; sums of its elements' bit patterns mod primes,
  // weighted by position): equal tensors give equal digests. Empty for a non-tensor output.
  std::string digest;
  at::Tensor pending_digest;  // the digest on the device until the run ends
  ItemRows item;
};

struct OpRecord {
  std::int64_t ordinal = 0;  // completion order: an op's nested calls come before it
  std::int64_t parent = -1;  // the ordinal of the op this one ran inside, -1 at the top
  std::int64_t depth = 0;    // ops it ran inside
  std::string name;          // "aten::linear"
  std::string overload;      // "Tensor", or empty
  std::string schema;        // the full schema, where the dispatcher knows it
  std::string region;        // the user scopes it ran in, outermost first: "layer.1.mlp.up/linear"
  std::string stack;         // the caller's context (a Python stack) where a context hook is set
  std::vector<TensorMeta> inputs;
  // The ops the callable calls itself (depth 0) with a schema: every argument in the schema's
  // order, and the names of its returns ("out0" where unnamed). Empty for nested calls.
  std::vector<ArgRecord> args;
  std::vector<std::string> returns;
  std::vector<OutputRecord> outputs;
  std::vector<KernelLaunch> kernels;  // tagged to this op itself, where kernel capture runs
};

struct Recording {
  RowMap map;
  std::vector<OpRecord> ops;  // in completion order
  bool kernels_captured = false;
  std::string kernels_note;  // why not, where not captured
  double wall_ms = 0;        // the recorded call, recording included
};

// "aten::add.Tensor" or "aten::linear".
std::string full_name(const OpRecord& op);

}  // namespace samebits::localize
