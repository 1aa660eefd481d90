// What a schema op calls once it has built a call's stack: the c10 dispatcher (ATen ops by schema
// name) or another callee with a schema of its own (a Python callable, python/src/).
#pragma once

#include <ATen/core/stack.h>

#include <string>

#include "harness/op.h"

namespace samebits {

class SchemaCallee {
 public:
  virtual ~SchemaCallee() = default;
  // The one implementation a schema op runs: its name in contracts and what it is.
  virtual ImplSpec implementation() const = 0;
  // How the op is called, after its schema in `samebits list` ("through the c10 dispatcher").
  virtual std::string how() const = 0;
  // Whether its calls must run one at a time on one thread (Op::serial).
  virtual bool serial() const { return false; }
  // Calls it with the schema's arguments on `stack`, in order; leaves its returns there. Throws
  // std::exception for a call that failed: the case's error, with its message.
  virtual void call(torch::jit::Stack& stack) const = 0;
};

}  // namespace samebits
