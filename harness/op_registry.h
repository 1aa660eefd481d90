// The ops a contract may name, looked up by name. The built-in registry holds the ATen adapters in
// harness/ops; tests build their own with control ops that violate contracts on purpose.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/op.h"

namespace samebits {

class OpRegistry {
 public:
  void add(std::unique_ptr<Op> op);
  const Op* find(const std::string& name) const;
  std::vector<std::string> names() const;
  const std::vector<std::unique_ptr<Op>>& ops() const { return ops_; }

  // Every op adapter shipped with samebits.
  static OpRegistry builtin();

 private:
  std::vector<std::unique_ptr<Op>> ops_;
};

}  // namespace samebits
