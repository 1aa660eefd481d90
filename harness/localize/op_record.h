// What localize keeps of one run: per ATen op call its name, schema, place in the call tree and in
// the model, its tensors' metadata, and per output a digest and the item's rows, never whole
// tensors.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

#include "harness/localize/row_map.h"
#include "reports/model/kernel_launch.h"

namespace samebits::localize {

struct TensorMeta {
  std::vector<std::int64_t> shape, strides;
  std::string dtype, device;
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
