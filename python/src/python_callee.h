// The callee of samebits.check(fn, ...): a Python callable behind a schema op, called with the
// items' batched tensors and the contract's values, its tensors handed back to the engine.
#pragma once

#include <ATen/core/function_schema.h>
#include <pybind11/pybind11.h>

#include <string>

#include "harness/ops/schema_callee.h"

namespace samebits {

// Hidden as pybind11's own types are (it holds a py::object), so the module stays warning-free.
class __attribute__((visibility("hidden"))) PythonCallee final : public SchemaCallee {
 public:
  // `schema` names fn's parameters (positional before "*", keywords after) and its returns.
  PythonCallee(pybind11::object fn, c10::FunctionSchema schema);
  ~PythonCallee() override;  // lets go of fn with the GIL held
  PythonCallee(const PythonCallee&) = delete;
  PythonCallee& operator=(const PythonCallee&) = delete;

  const c10::FunctionSchema& schema() const { return schema_; }
  ImplSpec implementation() const override;
  std::string how() const override { return "through a Python callable"; }
  // One thread at a time holds the GIL anyway; one lane keeps the calls in plan order.
  bool serial() const override { return true; }
  // Takes the GIL (the engine runs without it) and calls fn, with autograd only where an input
  // requires a gradient (the gradient checks). Throws
  // std::runtime_error for an exception fn raised (its type, message and line) and for a
  // return that is not a tensor or a tuple or list of as many tensors as the schema returns.
  void call(torch::jit::Stack& stack) const override;

 private:
  pybind11::object fn_;
  c10::FunctionSchema schema_;
};

}  // namespace samebits
