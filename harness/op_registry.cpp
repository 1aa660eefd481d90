// The ops a contract may name, looked up by name, and the ops built from schema contracts
// ("aten::NAME" with "inputs"). The built-in registry holds the ATen adapters in harness/ops; tests
// build their own with control ops that violate contracts on purpose.
#include "harness/op_registry.h"

#include <stdexcept>

#include "harness/ops/ops.h"
#include "harness/ops/schema_op.h"

namespace samebits {

void OpRegistry::add(std::unique_ptr<Op> op) {
  if (find(op->name())) throw std::logic_error("op registered twice: " + op->name());
  ops_.push_back(std::move(op));
}

const Op* OpRegistry::find(const std::string& name) const {
  for (const auto& op : ops_) {
    if (op->name() == name) return op.get();
  }
  return nullptr;
}

const Op* OpRegistry::op_for(const Contract& contract) const {
  if (const Op* op = find(contract.op)) return op;
  if (!contract.inputs) return nullptr;
  const std::string key = contract.source + "\n" + contract.inputs->key;
  const std::lock_guard<std::mutex> lock(built_->mutex);
  auto& op = built_->ops[key];
  if (!op) op = make_schema_op(contract);
  return op.get();
}

std::vector<std::string> OpRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& op : ops_) out.push_back(op->name());
  return out;
}

OpRegistry OpRegistry::builtin() {
  OpRegistry registry;
  for (auto& op : make_builtin_ops()) registry.add(std::move(op));
  return registry;
}

}  // namespace samebits
