// The ops a contract may name, looked up by name. The built-in registry holds the ATen adapters in
// harness/ops; tests build their own with control ops that violate contracts on purpose.
#include "harness/op_registry.h"

#include <stdexcept>

#include "harness/ops/ops.h"

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
