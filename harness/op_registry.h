// The ops a contract may name, looked up by name, and the ops built from schema contracts
// ("aten::NAME" with "inputs"). The built-in registry holds the ATen adapters in harness/ops; tests
// build their own with control ops that violate contracts on purpose.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "harness/op.h"

namespace samebits {

class OpRegistry {
 public:
  void add(std::unique_ptr<Op> op);
  const Op* find(const std::string& name) const;
  // The op a contract runs: the registered op of its name, else for a schema contract the op
  // built from its inputs (once per spec; it lives as long as the registry), else nullptr.
  // Throws ContractError for a schema contract its op's schema refuses.
  const Op* op_for(const Contract& contract) const;
  std::vector<std::string> names() const;
  const std::vector<std::unique_ptr<Op>>& ops() const { return ops_; }

  // Every op adapter shipped with samebits.
  static OpRegistry builtin();

 private:
  std::vector<std::unique_ptr<Op>> ops_;
  struct Built {
    std::mutex mutex;
    std::map<std::string, std::unique_ptr<Op>> ops;  // by source and spec
  };
  std::unique_ptr<Built> built_ = std::make_unique<Built>();
};

}  // namespace samebits
